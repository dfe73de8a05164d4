/** The member settings' "Can change team webhook" switch. */
export function WebhookSwitch(props: { checked: boolean; role: string }) {
  return (
    <div class="field">
      <label class="check">
        <input
          type="checkbox"
          name="can_change_webhook"
          checked={props.checked}
          aria-describedby="webhook-hint"
        />{' '}
        Can change team webhook
      </label>
      <p id="webhook-hint" class="hint">
        The webhook receives every completed search of the whole team. Owners and admins can change it by
        default; plain members only when this is ticked.
        {props.role === 'member' ? '' : ' Unticking it takes the right away from this admin.'}
      </p>
    </div>
  );
}

/** The "Read-only" preset: saves the read permissions and no team webhook, whatever is ticked. */
export function ReadOnlyPreset() {
  return (
    <div class="field">
      <div class="actions">
        <button
          type="submit"
          name="preset"
          value="read-only"
          class="secondary"
          aria-describedby="preset-hint"
        >
          Read-only
        </button>
      </div>
      <p id="preset-hint" class="hint">
        Saves this member as read-only: they can read searches, agent runs, schedules, usage and the webhook
        setup, and nothing that spends credits or changes the team.
      </p>
    </div>
  );
}
