import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeReturnTo } from '../../src/domain/identity/return-to.ts';

describe('safeReturnTo()', () => {
  it('keeps same-origin paths with their query', () => {
    assert.equal(safeReturnTo('/confirm/abc/pay'), '/confirm/abc/pay');
    assert.equal(safeReturnTo('/?city=madrid&page=2'), '/?city=madrid&page=2');
    assert.equal(safeReturnTo('/consultations'), '/consultations');
    assert.equal(safeReturnTo('/lawyers?language=es&q=asilo%20pol%C3%ADtico'), '/lawyers?language=es&q=asilo%20pol%C3%ADtico');
    // Encoded slashes inside a later segment stay a path on our origin.
    assert.equal(safeReturnTo('/a/%2F%2Fb'), '/a/%2F%2Fb');
  });

  it('normalises: dot segments resolved, the fragment dropped', () => {
    assert.equal(safeReturnTo('/a/./b/../c'), '/a/c');
    assert.equal(safeReturnTo('/consultations#top'), '/consultations');
  });

  it('accepts up to 512 characters and no more', () => {
    assert.equal(safeReturnTo(`/${'a'.repeat(511)}`)?.length, 512);
    assert.equal(safeReturnTo(`/${'a'.repeat(512)}`), null);
  });

  it('refuses everything that could leave the origin or is not a path', () => {
    const attacks = [
      // Absolute and scheme URLs.
      'https://evil.example',
      'http://evil.example/x',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      '/javascript:alert(1)',
      '/https://evil.example',
      // Protocol-relative, and what browsers read as such.
      '//evil.example',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\\/evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      // Dot segments that collapse into `//`.
      '/..//evil.example',
      '/.//evil.example',
      '/%2e%2e//evil.example',
      '/%2E//evil.example',
      // Encoded slashes, backslashes and schemes.
      '/%2F%2Fevil.example',
      '/%2f%2fevil.example',
      '/%5Cevil.example',
      '/%5C%5Cevil.example',
      '/%2Fhttps:%2F%2Fevil.example',
      '%2F%2Fevil.example',
      // Control characters, raw or encoded (header injection).
      '/consultations\r\nSet-Cookie: x=1',
      '/%0d%0aLocation: https://evil.example',
      '/%09/evil.example',
      '/%00',
      '/x\u007f',
      // Not a path, malformed, too long, not a string.
      ' /consultations',
      'consultations',
      '?next=/x',
      '',
      '/%E0%A4%A',
      `/${'a'.repeat(600)}`,
      null,
      undefined,
      42,
      ['/'],
      { toString: () => '/' },
    ];
    for (const a of attacks) assert.equal(safeReturnTo(a), null, JSON.stringify(a));
  });
});
