// One way of showing choices and defaults in every command's help: `(choices: a, b; default: a)`, no quotes, and
// no default for flags (off unless given). Commander wraps the text to the terminal's width.
import type { Help, Option } from 'commander';

/** The help settings every command inherits (commandLine.ts applies them before the commands are added). */
export const HELP_STYLE: Partial<Help> = {
  optionDescription(option: Option): string {
    const notes: string[] = [];
    if (option.argChoices !== undefined) notes.push(`choices: ${option.argChoices.join(', ')}`);
    const shownDefault = option.defaultValueDescription ?? option.defaultValue;
    // A flag's `false` says nothing; a default the description states itself is not repeated.
    if (shownDefault !== undefined && typeof shownDefault !== 'boolean' && !option.description.includes('(default:')) {
      notes.push(`default: ${String(shownDefault)}`);
    }
    return notes.length === 0 ? option.description : `${option.description} (${notes.join('; ')})`;
  },
};
