"use strict";
async function check() {
  const img = document.getElementById("cal-camera");
  img.src = `/api/frame.jpg?t=${Date.now()}`;
  const r = await api("/api/calibration?check=1");
  const out = document.getElementById("cal-result");
  if (!r.registered) { out.textContent = r.message; out.className = "prompt bad"; return; }
  out.textContent = `Markers seen: ${r.markers_seen.join(", ")} — reprojection error ${r.reprojection_error_px} px` +
    (r.missing && r.missing.length ? ` — missing: ${r.missing.join(", ")}` : " — all markers found");
  out.className = r.missing && r.missing.length ? "prompt bad" : "prompt good";
  if (r.paper_white_bgr.length) document.getElementById("cal-white").textContent =
    `paper white reads B ${r.paper_white_bgr[0]}, G ${r.paper_white_bgr[1]}, R ${r.paper_white_bgr[2]}`;
}
document.getElementById("cal-check").addEventListener("click", () => check().catch(() => {}));
