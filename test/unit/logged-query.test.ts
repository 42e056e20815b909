/**
 * What the request log keeps of a request's query string (loggedQuery): the text after the first
 * `?` as sent, null without one, bounded, and anything shaped like an API key blanked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOGGED_QUERY_MAX, loggedQuery } from '../../src/domain/access/request-log.ts';

describe('loggedQuery', () => {
  it('keeps the query as sent, without the question mark; none is null', () => {
    assert.equal(loggedQuery('/api/v1/lawyers/search?city=madrid&language=ar'), 'city=madrid&language=ar');
    assert.equal(loggedQuery('/api/v1/lawyers/search?city=a%20coru%C3%B1a'), 'city=a%20coru%C3%B1a');
    assert.equal(loggedQuery('/api/v1/cities?a=1?b=2'), 'a=1?b=2', 'from the first question mark');
    assert.equal(loggedQuery('/api/v1/cities'), null);
    assert.equal(loggedQuery('/api/v1/cities?'), null, 'an empty query is none');
    const url = '/api/v1/cities?page=2';
    assert.equal(loggedQuery(url, url.indexOf('?')), 'page=2', 'with the position the caller already found');
  });

  it('cuts a long query at the bound and marks the cut', () => {
    const q = loggedQuery(`/x?q=${'a'.repeat(5000)}`)!;
    assert.equal(q.length, LOGGED_QUERY_MAX + 1);
    assert.ok(q.endsWith('a…'));
    assert.equal(loggedQuery(`/x?${'b'.repeat(LOGGED_QUERY_MAX)}`), 'b'.repeat(LOGGED_QUERY_MAX), 'exactly the bound is kept whole');
  });

  it('blanks anything shaped like an API key, typed or percent-encoded, live or test, wherever it is', () => {
    const live = 'svc_4Fh2kQ9zLm8Xc7Vb6Nn5Aa4Ss3Dd2Ff1Gg';
    const test = 'svc_test_4Fh2kQ9zLm8Xc7Vb6Nn5Aa4Ss3Dd2Ff1Gg';
    assert.equal(loggedQuery(`/x?api_key=${live}&page=1`), 'api_key=svc_…&page=1');
    assert.equal(loggedQuery(`/x?key=${test}`), 'key=svc_…');
    assert.equal(loggedQuery(`/x?key=${live.replace('_', '%5F')};a=1`), 'key=svc_…;a=1');
    assert.equal(loggedQuery(`/x?KEY=SVC_${live.slice(4)}#frag`), 'KEY=svc_…#frag');
    assert.equal(loggedQuery(`/x?a=${live}&b=${test}`), 'a=svc_…&b=svc_…');
    // Cut in the middle of a key: what is left of it is blanked too.
    const cut = loggedQuery(`/x?q=${'a'.repeat(LOGGED_QUERY_MAX - 12)}&k=${live}`)!;
    assert.ok(!cut.includes(live.slice(4, 10)), cut);
    assert.equal(loggedQuery('/x?service=svc'), 'service=svc', 'the letters alone are not a key');
  });
});
