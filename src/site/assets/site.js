// Progressive enhancement only: every page works without this file.
// Copy buttons, forms that submit once, and the like; the hold's countdown and the visitor's
// time zone are booking.js's.
(function () {
  'use strict';
  // Copy buttons for secrets shown once and the widget's snippet (the text stays selectable
  // without JavaScript); "Copied" also goes to the button's live region for screen readers.
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    var label = button.textContent;
    var status = document.getElementById(button.getAttribute('data-copy-status') || '');
    button.hidden = false;
    button.addEventListener('click', function () {
      // Emptied first, so a second copy changes the region again and is announced again.
      if (status) status.textContent = '';
      navigator.clipboard.writeText(source.value || source.textContent || '').then(function () {
        button.textContent = button.getAttribute('data-copied') || label;
        if (status) status.textContent = button.getAttribute('data-copied') || '';
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
