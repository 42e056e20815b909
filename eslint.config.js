import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/**
 * The layer order of DESIGN.md §2 (docs/decisions.md#layers-how-the-code-is-put-together): a
 * file may import from its own layer and the layers below it, never from one above. Parts listed
 * together in one layer may import each other, except where `apart` says they stand side by side
 * (db and the payment providers share nothing but what lies below them).
 */
export const LAYERS = [
  { name: 'entry points', paths: ['src/main.ts', 'src/cli'] },
  { name: 'server', paths: ['src/server.ts'] },
  { name: 'jobs', paths: ['src/jobs'] },
  { name: 'app (composition)', paths: ['src/app.ts', 'src/services.ts'] },
  { name: 'area plugins', paths: ['src/site', 'src/mcp', 'src/oauth', 'src/http', 'src/metrics'] },
  { name: 'domain', paths: ['src/domain'] },
  { name: 'db and payment providers', paths: ['src/db', 'src/payments'], apart: true },
  { name: 'foundations', paths: ['src/i18n', 'src/contract', 'src/config.ts', 'src/clock.ts', 'src/zoned-time.ts'] },
];

/** One zone per layer: its files may not import any layer above; and one per part of an `apart` layer. */
export function layerZones(layers = LAYERS) {
  const zones = [];
  layers.forEach((layer, i) => {
    const above = layers.slice(0, i).flatMap((l) => l.paths);
    if (above.length > 0) zones.push({ target: layer.paths, from: above, message: `The ${layer.name} layer imports only from itself and the layers below it (DESIGN.md §2; docs/decisions.md#layers-how-the-code-is-put-together).` });
    if (layer.apart) {
      for (const part of layer.paths) {
        zones.push({ target: part, from: layer.paths.filter((p) => p !== part), message: `${layer.paths.join(' and ')} stand side by side: neither imports the other (DESIGN.md §2).` });
      }
    }
  });
  return zones;
}

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', '.bench/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through src/config.ts only.',
        },
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: 'Site pages are escaped by default: raw HTML is allowed only in src/site/ui/raw-html.tsx (reviewed).',
        },
      ],
    },
  },
  {
    // Imports run downwards only (DESIGN.md §2): the next import from a lower layer to a higher one fails lint.
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })] },
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones() }] },
  },
  {
    // The site's small browser scripts (progressive enhancement).
    files: ['src/site/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { document: 'readonly', window: 'readonly', setTimeout: 'readonly', navigator: 'readonly' } },
  },
  {
    // The one reviewed file that may render raw HTML (none does yet).
    files: ['src/site/ui/raw-html.tsx'],
    rules: { 'no-restricted-syntax': ['error', { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read configuration through src/config.ts only.' }] },
  },
  {
    files: ['src/config.ts', 'scripts/**', 'bin/**', 'test/**', 'bench/**', '.ci/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
