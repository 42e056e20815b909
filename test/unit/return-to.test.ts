import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeReturnTo } from '../../src/domain/identity/return-to.ts';

describe('safeReturnTo()', () => {
  it('keeps same-origin paths with their query', () => {
    assert.equal(safeReturnTo('/confirm/abc/pay'), '/confirm/abc/pay');
    assert.equal(safeReturnTo('/?city=madrid&page=2'), '/?city=madrid&page=2');
    assert.equal(safeReturnTo('/consultations'), '/consultations');
  });

  it('refuses everything that could leave the origin or is not a path', () => {
    const attacks = [
      'https://evil.example',
      'http://evil.example/x',
      '//evil.example',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/%2F%2Fevil.example',
      '/%5Cevil.example',
      'javascript:alert(1)',
      '/javascript:alert(1)',
      ' /consultations',
      '/consultations\r\nSet-Cookie: x=1',
      '/%0d%0aLocation: https://evil.example',
      'consultations',
      '',
      '/%E0%A4%A',
      `/${'a'.repeat(600)}`,
      null,
      undefined,
      42,
      ['/'],
    ];
    for (const a of attacks) assert.equal(safeReturnTo(a), null, JSON.stringify(a));
  });
});
