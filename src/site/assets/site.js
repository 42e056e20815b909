// Progressive enhancement only: every page works without this file.
// Copy buttons, forms that submit once, and the like; the hold's countdown and the visitor's
// time zone are booking.js's.
(function () {
  'use strict';
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
  // The language list (a <details>) closes on Escape, back to its button, and on a tap elsewhere.
  document.querySelectorAll('details.lang-menu').forEach(function (menu) {
    menu.addEventListener('keydown', function (event) {
      if (event.key === 'Escape' && menu.open) { menu.open = false; menu.querySelector('summary').focus(); }
    });
    document.addEventListener('click', function (event) {
      if (menu.open && !menu.contains(event.target)) menu.open = false;
    });
  });
})();
