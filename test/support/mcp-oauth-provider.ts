/**
 * The OAuth side of an MCP app in tests, as the TypeScript SDKs (v1 and v2) drive it: an
 * OAuthClientProvider keeping everything in memory (test/e2e/mcp-clients.test.ts,
 * test/clients/harness.ts).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** The app's redirect URI: never listened on, the browser's last redirect is handed over by the test. */
export const CALLBACK = 'http://127.0.0.1:8976/callback';

/**
 * What an interactive app keeps between the redirect and the callback, in memory: the one
 * provider shape both SDKs drive. Authorization URLs the SDK asks to open are queued.
 */
export class MemoryProvider implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = [];
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: unknown;

  constructor(private readonly metadata: OAuthClientMetadata) {}

  get redirectUrl(): string {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return this.metadata;
  }
  state(): string {
    return randomBytes(16).toString('base64url');
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  saveDiscoveryState(state: unknown): void {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.info = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }
  lastUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    assert.ok(url, 'the SDK asked to open an authorization URL');
    return url;
  }
}
