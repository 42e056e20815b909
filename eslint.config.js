import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
