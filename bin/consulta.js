#!/usr/bin/env node
// The `consulta` command: loads the TypeScript sources through tsx (no build step needed).
import { register } from 'tsx/esm/api';

register();
const { cli } = await import('../src/cli/main.ts');
await cli(process.argv.slice(2));
