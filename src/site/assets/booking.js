// The booking path's progressive enhancement (free times, hold, sign-in code, checkout, My
// consultations). Every page works without this file: the zone chooser is a form, the countdown
// starts as "14 minutes left", and the server checks every card.
(function () {
  'use strict';

  // ── The visitor's time zone: detected once, remembered in the consulta_tz cookie (strictly
  // necessary: it only changes how times are shown), then the page is shown again with it.
  var COOKIE = 'consulta_tz';
  var readZone = function () {
    var m = document.cookie.match(/(?:^|;\s*)consulta_tz=([^;]*)/);
    return m ? decodeURIComponent(m[1]) : '';
  };
  var chooser = document.querySelector('[data-zone-chooser]');
  if (!readZone()) {
    var detected = '';
    try { detected = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch { detected = ''; }
    if (/^[A-Za-z][A-Za-z0-9_+/-]{0,63}$/.test(detected)) {
      document.cookie = COOKIE + '=' + encodeURIComponent(detected) + '; path=/; max-age=31536000; samesite=lax' + (window.location.protocol === 'https:' ? '; secure' : '');
      var stored = readZone() === detected;
      var once = false;
      try { once = window.sessionStorage.getItem('consulta_tz_shown') === '1'; window.sessionStorage.setItem('consulta_tz_shown', '1'); } catch { once = true; }
      // Reload only a page fetched with GET that showed no zone, once per tab (no loop if the
      // server ignores the zone), and only when the zone could change what it shows.
      if (stored && !once && chooser && chooser.hasAttribute('data-zone-reload') && chooser.getAttribute('data-zone-current') === '' && detected !== chooser.getAttribute('data-lawyer-zone')) {
        window.location.reload();
        return;
      }
    }
  }

  // ── Time left to confirm: "14:59 left", counted from what the server said (not the device clock).
  var started = Date.now();
  document.querySelectorAll('[data-time-left]').forEach(function (el) {
    var seconds = Number(el.getAttribute('data-seconds'));
    var template = el.getAttribute('data-template') || '{time}';
    if (!isFinite(seconds)) return;
    var tick = function () {
      var s = Math.max(0, Math.round(seconds - (Date.now() - started) / 1000));
      el.textContent = template.replace('{time}', Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0'));
      if (s > 0) setTimeout(tick, 1000 - ((Date.now() - started) % 1000));
    };
    tick();
  });

  // ── The payment page's summary: a closed <details> on a phone (the card fields come first);
  // where the summary sits beside the form (the .checkout grid's breakpoint) it starts open.
  if (window.matchMedia && window.matchMedia('(min-width: 52rem)').matches) {
    document.querySelectorAll('details[data-open-wide]').forEach(function (el) { el.open = true; });
  }

  // ── Checkout (the demo provider's card form).
  var form = document.querySelector('form[data-card-form]');
  var summary = document.querySelector('[data-error-summary]');
  if (summary && summary.hasAttribute('data-focus')) summary.focus();
  if (!form) return;
  var input = function (name) { return form.querySelector('[data-card="' + name + '"]'); };
  var number = input('number');
  var expiry = input('expiry');
  var cvc = input('cvc');
  var brandOut = form.querySelector('[data-card-brand]');
  var digits = function (v) { return v.replace(/\D/g, ''); };

  var brand = function (d) {
    if (/^4/.test(d)) return 'Visa';
    if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(d)) return 'Mastercard';
    if (/^3[47]/.test(d)) return 'American Express';
    if (/^(6011|65|64[4-9])/.test(d)) return 'Discover';
    if (/^3(0[0-5]|[689])/.test(d)) return 'Diners Club';
    if (/^35/.test(d)) return 'JCB';
    return null;
  };
  var group = function (d) {
    var sizes = /^3[47]/.test(d) ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var out = [];
    var at = 0;
    for (var i = 0; i < sizes.length && at < d.length; i++) { out.push(d.slice(at, at + sizes[i])); at += sizes[i]; }
    return out.join(' ');
  };
  var luhn = function (d) {
    var sum = 0;
    for (var i = 0; i < d.length; i++) {
      var n = Number(d[d.length - 1 - i]);
      if (i % 2 === 1) { n *= 2; if (n > 9) n -= 9; }
      sum += n;
    }
    return sum % 10 === 0;
  };
  // Keeps the caret after the same number of digits when the text is regrouped.
  var reformat = function (el, format) {
    var caret = el.selectionStart === null ? el.value.length : el.selectionStart;
    var before = digits(el.value.slice(0, caret)).length;
    var next = format(el.value);
    if (next === el.value) return;
    el.value = next;
    var pos = 0;
    for (var seen = 0; pos < next.length && seen < before; pos++) if (/\d/.test(next[pos])) seen++;
    if (document.activeElement === el) el.setSelectionRange(pos, pos);
  };
  var showBrand = function () { if (brandOut) brandOut.textContent = brand(digits(number.value)) || '—'; };
  if (number) {
    number.addEventListener('input', function () { reformat(number, function (v) { return group(digits(v).slice(0, 19)); }); showBrand(); });
    showBrand();
  }
  if (expiry) {
    expiry.addEventListener('input', function (event) {
      // Deleting keeps what is left as it is; typing "1230" becomes "12/30".
      if (event.inputType && event.inputType.indexOf('delete') === 0) return;
      reformat(expiry, function (v) {
        var d = digits(v);
        // A four-digit year (autofill or a paste, "12/2030") is kept as its last two digits, not cut to "12/20".
        if (/^(0[1-9]|1[0-2])20\d\d$/.test(d)) d = d.slice(0, 2) + d.slice(4);
        d = d.slice(0, 4);
        if (d.length === 1 && d > '1') d = '0' + d;
        return d.length > 2 ? d.slice(0, 2) + '/' + d.slice(2) : d;
      });
    });
  }
  if (cvc) cvc.addEventListener('input', function () { reformat(cvc, function (v) { return digits(v).slice(0, 4); }); });

  var problems = function () {
    var out = [];
    var d = digits(number.value);
    if (d.length < 12 || d.length > 19 || !luhn(d)) out.push(['number', form.getAttribute('data-msg-number')]);
    var m = /^(\d{1,2})\s*\/\s*(\d{2})$/.exec(expiry.value.trim()) || /^(\d{2})(\d{2})$/.exec(expiry.value.trim());
    var month = m ? Number(m[1]) : 0;
    if (!m || month < 1 || month > 12) out.push(['expiry', form.getAttribute('data-msg-expiry')]);
    else {
      var now = new Date();
      // Valid through the last day of its month.
      if (Date.UTC(2000 + Number(m[2]), month, 1) <= Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) out.push(['expiry', form.getAttribute('data-msg-expired')]);
    }
    if (!/^\d{3,4}$/.test(cvc.value.trim())) out.push(['cvc', form.getAttribute('data-msg-cvc')]);
    return out;
  };
  var setError = function (el, message) {
    var id = el.id + '-error';
    var out = document.getElementById(id);
    var described = (el.getAttribute('aria-describedby') || '').split(' ').filter(function (x) { return x && x !== id; });
    if (!message) {
      if (out) out.remove();
      el.removeAttribute('aria-invalid');
    } else {
      if (!out) {
        out = document.createElement('span');
        out.className = 'field-error';
        out.id = id;
        el.parentElement.appendChild(out);
      }
      out.textContent = message;
      el.setAttribute('aria-invalid', 'true');
      described.push(id);
    }
    if (described.length) el.setAttribute('aria-describedby', described.join(' '));
    else el.removeAttribute('aria-describedby');
  };
  var button = form.querySelector('button[type="submit"]');
  var label = button ? button.textContent : '';

  // Capture phase on the document: runs before the form's own listeners (site.js's submit-once),
  // so a form that is refused here is not marked as sent.
  document.addEventListener('submit', function (event) {
    if (event.target !== form) return;
    var found = problems();
    [number, expiry, cvc].forEach(function (el) {
      var p = found.filter(function (x) { return x[0] === el.getAttribute('data-card'); })[0];
      setError(el, p ? p[1] : null);
    });
    if (found.length) {
      event.preventDefault();
      event.stopPropagation();
      if (summary) {
        var list = summary.querySelector('[data-error-list]');
        list.textContent = '';
        found.forEach(function (p) {
          var li = document.createElement('li');
          var a = document.createElement('a');
          a.href = '#f-' + p[0];
          a.textContent = p[1];
          li.appendChild(a);
          list.appendChild(li);
        });
        var note = summary.querySelector('[data-server-note]');
        if (note) note.remove();
        summary.hidden = false;
        summary.focus();
      } else {
        input(found[0][0]).focus();
      }
      return;
    }
    if (button) {
      button.textContent = button.getAttribute('data-paying') || label;
      button.classList.add('busy');
      button.setAttribute('aria-disabled', 'true');
    }
    form.setAttribute('aria-busy', 'true');
  }, true);
  // Back from the next page (bfcache): the form can be used again.
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted || !button) return;
    button.textContent = label;
    button.classList.remove('busy');
    button.removeAttribute('aria-disabled');
    form.removeAttribute('aria-busy');
    delete form.dataset.sent;
  });
  // A link in the error summary moves to its field.
  if (summary) {
    summary.addEventListener('click', function (event) {
      var a = event.target.closest && event.target.closest('a[href^="#f-"]');
      if (!a) return;
      var el = document.getElementById(a.getAttribute('href').slice(1));
      if (el) { event.preventDefault(); el.focus(); }
    });
  }
})();
