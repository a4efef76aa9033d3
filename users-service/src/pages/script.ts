import { Html } from './html';

/**
 * The pages' only script, inline under the CSP nonce. Everything works without it: the copy button
 * stays hidden (the key is selectable with one click) and revoke forms submit without a prompt.
 * A constant, so it needs no escaping; a plain string, so prettier leaves its layout alone.
 */
export const SCRIPT = new Html(`
(function () {
  var button = document.getElementById('copy-key');
  var key = document.getElementById('new-key');
  var status = document.getElementById('copy-status');
  function selectKey(message) {
    window.getSelection().selectAllChildren(key);
    status.textContent = message;
  }
  if (button && key && status) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var manual = 'The key is selected: press Ctrl+C (or Cmd+C) to copy it.';
      if (!navigator.clipboard || !navigator.clipboard.writeText) return selectKey(manual);
      navigator.clipboard.writeText(key.textContent || '').then(function () {
        status.textContent = 'Copied to the clipboard.';
      }, function () { selectKey(manual); });
    });
  }
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });
})();
`);
