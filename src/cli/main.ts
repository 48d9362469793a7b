#!/usr/bin/env node
// The `snptally` command: runs the command line and exits with its status (commandLine.ts).
import { runCommandLine } from './commandLine.js';

process.exitCode = await runCommandLine(process.argv);
