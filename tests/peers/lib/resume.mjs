// The resume scenario both EventSource peers run. The test starts sluiced
// with one loop, a small send budget (send.budget_bytes=4096, about four of
// these events) and a short slow-consumer retry (policy.slow_retry_ms=50).
// Each pipelined burst overflows the budget within one loop tick, so sluiced
// cuts the stream off (fifo policy) after what it has queued; the client
// reconnects with Last-Event-ID and the rest is replayed, which may
// overflow the budget again. Every cut must lose and repeat nothing.
export const kEvents = 60;
export const kBurst = 12;

export function resumeBodies() {
  return Array.from({ length: kEvents }, (_, i) => `e${i} ${'x'.repeat(1000)}`);
}

// `received` is every event as {id, data} in arrival order; `opens` counts
// the streams the client opened. Returns what is wrong, or null.
export function checkResume(received, opens, bodies) {
  if (opens < 2) return `the stream was never cut and resumed (${opens} open)`;
  if (received.length !== bodies.length) return `${received.length} events, wanted ${bodies.length}`;
  for (let i = 0; i < bodies.length; ++i) {
    const seq = Number(received[i].id.split(':')[1]);
    if (received[i].data !== bodies[i] || seq !== i + 1) {
      return `event ${i} was id ${received[i].id} '${received[i].data.slice(0, 8)}...'`;
    }
  }
  return null;
}
