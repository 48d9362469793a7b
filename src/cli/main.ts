#!/usr/bin/env node
// The `snptally` command: runs the command line and exits with its status (commandLine.ts).
import { traceMark } from '../core/trace.js';
import { runCommandLine } from './commandLine.js';
import { stdioFlushed } from './stdout.js';

traceMark(`command line loaded, ${performance.now().toFixed(0)} ms after the process started`);
const status = await runCommandLine(process.argv);
traceMark('command line done');
// Every output is complete when the command line returns: exiting at once skips the teardown of Dawn's GPU instance
// and of idle threads that a natural exit waits for (0.13 s of 0.2 s after a GPU run on the H200 host).
await stdioFlushed();
process.exit(status);
