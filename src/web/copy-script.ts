/**
 * The one script the pages load (/assets/copy.js, our origin: CSP script-src 'self'), and only pages
 * with copy buttons load it. Progressive: the buttons are rendered `hidden` and shown by this script,
 * so without it (or without JavaScript) the text is simply there to select. Where the Clipboard API
 * is refused (plain http off localhost is not a secure context), the text is selected instead and the
 * status says which keys copy it.
 */
export const COPY_SCRIPT = `'use strict';
(function () {
  function say(button, text) {
    var status = button.parentElement && button.parentElement.querySelector('.copy-status');
    if (status) status.textContent = text;
  }
  function select(target) {
    var range = document.createRange();
    range.selectNodeContents(target);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var target = document.getElementById(button.getAttribute('data-copy'));
      if (!target) return;
      var text = target.textContent || '';
      var fallback = function () {
        select(target);
        say(button, 'Selected. Press Ctrl+C (or Command+C) to copy.');
      };
      if (!navigator.clipboard || !window.isSecureContext) return fallback();
      navigator.clipboard.writeText(text).then(function () {
        say(button, 'Copied.');
      }, fallback);
    });
  });
})();
`;
