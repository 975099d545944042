// Publishes through POST /pub/{topic} with pipelined requests on one
// kept-alive connection: a burst reaches sluiced in one read, so its events
// are queued for a subscriber within one loop tick, which is what fills a
// small send budget (see resume_check.mjs).
import net from 'node:net';

function postRequest(port, topic, body) {
  return `POST /pub/${topic} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

// Splits complete responses off the front of `buffer`; returns their status
// codes and what is left over.
function takeResponses(buffer) {
  const statuses = [];
  for (;;) {
    const headEnd = buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const head = buffer.subarray(0, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (buffer.length < headEnd + 4 + length) break;
    statuses.push(Number(head.split(' ')[1]));
    buffer = buffer.subarray(headEnd + 4 + length);
  }
  return { statuses, rest: buffer };
}

// Sends `bodies` in bursts of `burst` requests, each burst after the replies
// to the one before. Resolves when every reply has come back 200.
export function publishAll(port, topic, bodies, burst) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let sent = 0;
    let answered = 0;
    let pending = Buffer.alloc(0);
    const sendBurst = () => {
      const end = Math.min(sent + burst, bodies.length);
      socket.write(bodies.slice(sent, end).map((b) => postRequest(port, topic, b)).join(''));
      sent = end;
    };
    socket.on('connect', sendBurst);
    socket.on('data', (chunk) => {
      const { statuses, rest } = takeResponses(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const status of statuses) {
        if (status !== 200) return reject(new Error(`publish ${answered} got HTTP ${status}`));
        ++answered;
      }
      if (answered === bodies.length) return socket.end(resolve);
      if (answered === sent) sendBurst();
    });
    socket.on('error', reject);
    socket.on('close', () => answered < bodies.length && reject(new Error(`publisher closed after ${answered} replies`)));
  });
}
