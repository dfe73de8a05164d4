/**
 * Why a call stopped waiting, carried as its abort signal's reason. Only an explicit cancel stops the
 * upstream work (an agent run is cancelled upstream); a client that closed its connection or went
 * silent has only stopped listening, and the work keeps running for the follow-up call. The 2025-06-18
 * transport says as much: "Disconnection SHOULD NOT be interpreted as the client cancelling its
 * request" (Streamable HTTP, "Sending Messages to the Server"). The reason is set by whoever aborts:
 * ../cancellation/inflight.ts for a `notifications/cancelled`, the tasks extension for `tasks/cancel`,
 * the bypass paths for a client that went away.
 */

/** The client asked to cancel this call (a `notifications/cancelled` naming it, or `tasks/cancel`). */
export class CancelledByClient extends Error {
  constructor(message = 'cancelled by the client') {
    super(message);
    this.name = 'CancelledByClient';
  }
}

/** The client closed the connection or stopped reading: nobody will read the answer, nothing is cancelled. */
export class ClientLeft extends Error {
  constructor(message = 'the client went away') {
    super(message);
    this.name = 'ClientLeft';
  }
}

/** Whether `signal` was aborted by an explicit cancel, the only abort that cancels upstream work. */
export function cancelledByClient(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof CancelledByClient;
}
