// A webhook endpoint's deliveries, kept current without a reload (progressive enhancement: the
// page's "Refresh" link does the same by hand, and works without this file).
// While the tab is visible it asks the server for the list every few seconds (an HTML fragment
// rendered and escaped by the server, at data-live-url) and swaps it in when its
// data-live-version differs. It stops after a while (data-live-for ms, 10 minutes by default),
// when the answer is not a plain 200 (signed out, gone), and never follows a redirect.
(function () {
  'use strict';
  var root = document.querySelector('[data-live-url]');
  if (!root || !window.fetch || !('content' in document.createElement('template'))) return;
  var target = root.querySelector('[data-live-target]');
  var status = root.querySelector('[data-live-status]');
  if (!target || !status) return;
  var url = root.getAttribute('data-live-url');
  var every = Number(root.getAttribute('data-live-every')) || 3000;
  var until = Date.now() + (Number(root.getAttribute('data-live-for')) || 600000);
  var timer = null;
  var inFlight = false;
  var stopped = false;
  // The language this part of the page is written in (a people-only language's developer area is
  // English, marked lang="en"), as the Intl tag the server formats with.
  var written = (root.closest('[lang]') || document.documentElement).getAttribute('lang');
  var lang = written === 'en' ? 'en-GB' : written === 'es' ? 'es-ES' : written;

  function say(text) {
    status.textContent = text || '';
    status.hidden = !text;
  }

  function version(node) {
    var list = node && node.querySelector ? node.querySelector('[data-live-version]') : null;
    return list ? list.getAttribute('data-live-version') : null;
  }

  function stop() {
    stopped = true;
    window.clearTimeout(timer);
    say(root.getAttribute('data-live-stopped'));
  }

  function schedule() {
    window.clearTimeout(timer);
    if (!stopped && document.visibilityState === 'visible') timer = window.setTimeout(tick, every);
  }

  function swap(fragment) {
    // Keep open what the person opened (a response body), and never pull the list from under
    // their focus (a "Send again" button): that change waits for the next round.
    var active = document.activeElement;
    if (active && active !== document.body && target.contains(active)) return false;
    var open = {};
    target.querySelectorAll('details[data-attempt][open]').forEach(function (d) { open[d.getAttribute('data-attempt')] = true; });
    // The endpoint's facts (messages waiting, failures, status) come with the list: put them in their place.
    var facts = fragment.querySelector('[data-live-facts]');
    if (facts) {
      facts.remove();
      var shown = document.querySelector('[data-live-facts]');
      if (shown) shown.replaceWith(facts);
    }
    target.replaceChildren(fragment);
    target.querySelectorAll('details[data-attempt]').forEach(function (d) { if (open[d.getAttribute('data-attempt')]) d.open = true; });
    return true;
  }

  function tick() {
    if (stopped || inFlight) return;
    if (Date.now() > until) return stop();
    if (document.visibilityState !== 'visible') return;
    inFlight = true;
    window.fetch(url, { credentials: 'same-origin', redirect: 'error', cache: 'no-store', headers: { accept: 'text/html' } })
      .then(function (res) {
        if (res.status !== 200) throw new Error('status ' + res.status);
        return res.text();
      })
      .then(function (html) {
        // A <template> parses without running or loading anything.
        var template = document.createElement('template');
        template.innerHTML = html;
        var fresh = version(template.content);
        if (fresh === null) throw new Error('not a deliveries list');
        if (fresh !== version(target) && swap(template.content)) {
          say(root.getAttribute('data-live-updated') + ' ' + new Date().toLocaleTimeString(lang));
        }
        inFlight = false;
        schedule();
      })
      .catch(function () {
        inFlight = false;
        stop();
      });
  }

  document.addEventListener('visibilitychange', function () {
    if (stopped) return;
    if (document.visibilityState === 'visible') tick();
    else window.clearTimeout(timer);
  });
  say(root.getAttribute('data-live-on'));
  schedule();
})();
