/**
 * The copy-button script (/assets/copy.js, our origin: CSP script-src 'self'): only pages with copy
 * buttons load it. Progressive: the buttons are rendered `hidden` and shown by this script,
 * so without it (or without JavaScript) the text is simply there to select. Where the Clipboard API
 * is refused (plain http off localhost is not a secure context), the text is selected instead and the
 * status says which keys copy it. The target is an element's text, or a read-only input's value.
 */
export const COPY_SCRIPT = `'use strict';
(function () {
  function say(button, text) {
    var status = button.parentElement && button.parentElement.querySelector('.copy-status');
    if (status) status.textContent = text;
  }
  function isField(target) {
    return target.tagName === 'INPUT' || target.tagName === 'TEXTAREA';
  }
  function select(target) {
    if (isField(target)) {
      target.focus();
      target.select();
      return;
    }
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
      var text = isField(target) ? target.value : target.textContent || '';
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
