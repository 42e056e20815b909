/** Runs the service, exactly as `consulta serve` does. */
import { cli } from './cli/main.ts';

await cli(['serve', ...process.argv.slice(2)]);
