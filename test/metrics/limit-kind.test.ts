/** Which limit a limiter bucket is reported under: every bucket name the code uses has its own kind. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { limitKind } from '../../src/metrics/metrics.ts';

it('maps every limiter bucket of the code to its limit kind, anything else to other', () => {
  const cases: Array<[string, string]> = [
    ['key:6f1c…', 'api_key'],
    ['diag:6f1c…', 'diagnostic'],
    ['anon:availability:203.0.113.9', 'anonymous_availability'],
    ['anon:initiate:203.0.113.9', 'anonymous_initiate'],
    ['anon:default:2001:db8::1', 'anonymous_default'],
    ['authfail:203.0.113.9', 'failed_auth'],
    ['mcp:call:user-1:client-1', 'mcp_tool_call'],
    ['mcp:hold:user-1', 'mcp_hold'],
    ['oauth:reg:all', 'oauth_registration'],
    ['oauth:reg:203.0.113.9', 'oauth_registration'],
    ['signin:ip:203.0.113.9', 'sign_in'],
    ['signin:email:ab12', 'sign_in'],
    ['signin:attempt:ab12', 'sign_in'],
    ['passkey:options:203.0.113.9', 'passkey'],
    ['passkey:attempt:203.0.113.9', 'passkey'],
    ['something-new:x', 'other'],
  ];
  for (const [bucket, kind] of cases) assert.equal(limitKind(bucket), kind, bucket);
});
