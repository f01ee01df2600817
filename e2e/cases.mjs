// What the e2e client scripts share: each runs named cases against a
// running tonql and prints one JSON object, case name -> {"value": ...} or
// {"error": "..."}, which the Go test reads.

export const out = {};

export async function run(name, call) {
  try {
    out[name] = { value: await call() };
  } catch (e) {
    // an HTTP client's error carries the server's answer: keep it whole
    const data = e?.response?.data;
    out[name] = { error: data ? JSON.stringify(data) : String(e?.message ?? e) };
  }
}

// postJSON POSTs body to base+path and answers the parsed 200 answer (any
// other status is an error naming it).
export async function postJSON(base, path, body) {
  const res = await fetch(base + path, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text);
}

// fees is what a preview's cost comparison reads of an answer.
export const fees = (p) => ({ source_fees: p.source_fees, destination_fees: p.destination_fees, risk: p.risk });
