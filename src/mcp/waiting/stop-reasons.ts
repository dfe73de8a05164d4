/**
 * Why a call stopped waiting, carried as its abort signal's reason. No reason stops the upstream work:
 * only an explicit cancel does (`cancel_agent_run`, `tasks/cancel`), through its own tool or method.
 * A `notifications/cancelled` for a tools/call means the client stopped waiting for that answer: the
 * SDKs send one on their own request time-out (the 2025-06-18 v1 client does for every request it
 * gives up on), so reading it as "stop the work" would cancel runs whenever a client is impatient. A
 * client that closed its connection or went silent has likewise only stopped listening; the 2025-06-18
 * transport says "Disconnection SHOULD NOT be interpreted as the client cancelling its request"
 * (Streamable HTTP, "Sending Messages to the Server"). The reason is set by whoever aborts:
 * ../cancellation/inflight.ts for a `notifications/cancelled`, the bypass paths for a client that went away.
 */

/** The client sent `notifications/cancelled` for this call: it stopped waiting; the work goes on. */
export class CancelledByClient extends Error {
  constructor(message = 'the client stopped waiting (notifications/cancelled)') {
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
