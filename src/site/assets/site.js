// Progressive enhancement only: every page works without this file.
// - <time data-local> gets the visitor's own local time added;
// - [data-countdown] counts down to its data-deadline (ISO) each second.
(function () {
  'use strict';
  // The page's language as Intl writes it (src/i18n/locales.ts has the same table).
  var lang = { es: 'es-ES', en: 'en-GB' }[document.documentElement.lang] || document.documentElement.lang || 'es-ES';
  document.querySelectorAll('time[data-local]').forEach(function (el) {
    var when = new Date(el.getAttribute('datetime'));
    if (isNaN(when.getTime())) return;
    var out = el.parentElement && el.parentElement.querySelector('[data-local-out]');
    if (!out) return;
    out.textContent = (out.getAttribute('data-prefix') || '') + new Intl.DateTimeFormat(lang, { weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(when);
    out.hidden = false;
  });
  document.querySelectorAll('[data-countdown]').forEach(function (el) {
    var deadline = Date.parse(el.getAttribute('data-deadline'));
    if (isNaN(deadline)) return;
    var tick = function () {
      var s = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      el.textContent = Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
      if (s > 0) setTimeout(tick, 1000);
    };
    tick();
  });
  // Copy buttons for secrets shown once (the text stays selectable without JavaScript).
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(source.value || source.textContent || '').then(function () {
        button.textContent = button.getAttribute('data-copied') || label;
        setTimeout(function () { button.textContent = label; }, 2000);
      });
    });
  });
  // A form submits once: a second tap while the first is on its way does nothing.
  document.querySelectorAll('form[data-once]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (form.dataset.sent) { event.preventDefault(); return; }
      form.dataset.sent = '1';
      form.querySelectorAll('button[type="submit"]').forEach(function (b) { b.setAttribute('aria-disabled', 'true'); });
    });
  });
})();
