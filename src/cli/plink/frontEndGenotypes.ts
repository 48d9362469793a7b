// The genotypes a front end's run reads, opened in the front end itself: the same input, PLINK's selection flags (as
// given to the run) and the autosomes, through the same code, so that it sees the run's samples and SNPs — for a
// pass over the SNP rows beside the run (distanceCommand.ts's missing-call tallies).
import { Command } from 'commander';
import type { GenotypeSource } from '../../io/index.js';
import { addSelectionOptions, parseSelection, readSelectionOptionText } from '../genotypeInputOptions.js';
import { openSelectedGenotypes } from '../genotypePreparation.js';

/**
 * `input` with the selection of `selectionArgs` (snptally's flags, e.g. ['--chr', '1,2']) and only the autosomes.
 * @throws UserError as the run would: a bad selection flag or ID file, an unreadable input.
 */
export async function openChildGenotypes(
  input: { readonly path: string }, selectionArgs: readonly string[],
): Promise<GenotypeSource> {
  const command = addSelectionOptions(new Command().exitOverride().configureOutput({ writeErr: () => undefined }));
  command.parse([...selectionArgs], { from: 'user' });
  const selection = await parseSelection(readSelectionOptionText(command.opts()));
  const opened = await openSelectedGenotypes(input.path, { onBadSite: 'error', selection, autosomesOnly: true, caseControl: null });
  return opened.source;
}
