/* global location, ResizeObserver, setInterval, clearInterval, fetch */
// The widget frame's script (docs/widget.md#events): tells the embedding page what happens,
// sizes the frame, counts the hold down and learns its outcome by polling. The page works
// without it (links and a "Check again" link).
(function () {
  'use strict';
  var host = document.body.dataset.host;
  var wid = document.body.dataset.wid;
  function post(type, data) {
    if (!host || window.parent === window) return;
    var m = { type: type, version: 1, widget: wid };
    for (var k in data) m[k] = data[k];
    // Only to the embedding origin (checked by the server against the key's list).
    window.parent.postMessage(m, host);
  }
  var last = 0;
  function size() {
    var h = document.documentElement.scrollHeight;
    if (h !== last) {
      last = h;
      post('consulta:resized', { height: h });
    }
  }
  post('consulta:ready', { page: location.pathname.split('/')[2] || '' });
  size();
  if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);

  var hold = document.getElementById('hold');
  if (!hold) return;
  var h = hold.dataset;
  var slot = { date: h.date, start_time: h.start, end_time: h.end };
  var about = { booking_intent_id: h.intent || null, lawyer_id: h.lawyer, slot: slot, expires_at: h.expires || null, test: h.test === '1' };
  var status = h.status;
  if (status === 'pending') post('consulta:slot-held', about);
  function show(s) {
    status = s;
    var parts = hold.querySelectorAll('[data-state]');
    for (var i = 0; i < parts.length; i++) parts[i].hidden = parts[i].dataset.state !== s;
    size();
    if (s === 'confirmed') post('consulta:confirmed', { booking_intent_id: about.booking_intent_id, lawyer_id: h.lawyer, slot: slot });
    if (s === 'expired') post('consulta:expired', { booking_intent_id: about.booking_intent_id, lawyer_id: h.lawyer, slot: slot });
  }
  if (status === 'confirmed' || status === 'expired') show(status);
  if (status !== 'pending' || !h.poll) return;
  var clock = document.getElementById('countdown');
  var ends = Date.parse(h.expires);
  var tick = setInterval(function () {
    var left = Math.max(0, Math.floor((ends - Date.now()) / 1000));
    if (clock) clock.textContent = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
    if (left === 0) clearInterval(tick);
  }, 1000);
  function poll() {
    fetch(h.poll, { credentials: 'omit', cache: 'no-store' })
      .then(function (r) { return r.json(); })
      .then(function (j) {
        if (j.status === 'confirmed' || j.status === 'expired') {
          clearInterval(tick);
          show(j.status);
        } else setTimeout(poll, 3000);
      })
      .catch(function () { setTimeout(poll, 6000); });
  }
  setTimeout(poll, 2000);
})();
