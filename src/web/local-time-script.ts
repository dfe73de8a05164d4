/**
 * /assets/local-time.js (our origin: CSP script-src 'self'), loaded by pages that show times of day
 * (Layout's `localTimes`). Progressive: the server writes every `<time class="local">` in UTC; this
 * rewrites it in the reader's time zone, in the same shape with the zone's offset
 * (`2026-11-22 03:30 UTC+1`, `… UTC-3:30`), so it stays unambiguous. Without JavaScript, UTC remains.
 */
export const LOCAL_TIME_SCRIPT = `'use strict';
(function () {
  function pad(n) {
    return (n < 10 ? '0' : '') + n;
  }
  function zone(minutesEast) {
    if (minutesEast === 0) return 'UTC';
    var m = Math.abs(minutesEast);
    return 'UTC' + (minutesEast > 0 ? '+' : '-') + Math.floor(m / 60) + (m % 60 ? ':' + pad(m % 60) : '');
  }
  document.querySelectorAll('time.local[datetime]').forEach(function (el) {
    var d = new Date(el.getAttribute('datetime'));
    if (isNaN(d.getTime())) return;
    el.textContent =
      d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ' ' + zone(-d.getTimezoneOffset());
  });
})();
`;
