/* The attempt viewer of the HTML report. Inlined into the page and allowed by the page's
   Content-Security-Policy through its sha256 hash: no other script can run.
   Agent text is only ever set with textContent or createTextNode, never as markup. */
(function () {
  "use strict";
  var source = document.getElementById("agenttest-data");
  var root = document.getElementById("viewer");
  if (!source || !root) { return; }
  var DATA = JSON.parse(source.textContent);
  var ALL = DATA.attempts || [];
  var BASE = {};
  (DATA.baseline || []).forEach(function (a) {
    (BASE[a.block] = BASE[a.block] || []).push(a);
  });
  var PAGE = 100;
  var state = { list: [], shown: 0, sort: "number", desc: false };
  var $ = function (id) { return document.getElementById(id); };
  var f = {
    tier: $("f-tier"), block: $("f-block"), verdict: $("f-verdict"),
    critical: $("f-critical"), rater: $("f-rater"), q: $("f-q")
  };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function add(parent, tag, cls, text) {
    var e = el(tag, cls, text);
    parent.appendChild(e);
    return e;
  }

  var fold = agenttestText.fold, hits = agenttestText.hits, marked = agenttestText.marked;

  function callTexts(out, label, calls) {
    calls.forEach(function (c) {
      out.push([label + " call", c.name + "(" + c.args + ")"]);
      if (c.result) { out.push([label + " result", c.result]); }
    });
  }

  /* every text of an attempt, labelled by where it is: what search looks through */
  function texts(a) {
    var out = [["block", a.block], ["run", a.run_id]];
    a.turns.forEach(function (t) {
      out.push(["prompt", t.prompt], ["reply", t.reply]);
      t.steps.forEach(function (s) {
        out.push(["model step", s.text]);
        s.calls.forEach(function (c) { out.push(["model step call", c]); });
      });
      callTexts(out, "tool", t.calls);
      callTexts(out, "served tool", t.hosted_calls);
      t.trace.forEach(function (line) { out.push(["trace", line]); });
      t.log.forEach(function (line) { out.push(["log", line]); });
      if (t.error) { out.push(["error", t.error]); }
    });
    a.criteria.forEach(function (c) {
      out.push(["criterion", c.id + " " + c.tag + " " + c.says], ["evidence", c.evidence]);
    });
    a.critical.forEach(function (h) { out.push(["evidence", h.rule + " " + h.evidence]); });
    a.evidence_notes.forEach(function (n) { out.push(["evidence", n]); });
    if (a.error) { out.push(["error", a.error]); }
    return out.filter(function (x) { return x[1]; });
  }

  function haystack(a) {
    if (a._folded === undefined) {
      a._folded = texts(a).map(function (x) { return fold(x[1]); }).join("\n");
    }
    return a._folded;
  }

  function verdictClass(v) {
    return v === "PASS" ? "pass" : (v === "FAIL" || v === "ERROR") ? "fail" : "unknown";
  }

  function verdictText(v) {
    if (v === "NOT_APPLICABLE") { return "not applicable"; }  /* wraps between words */
    return v === "AWAITING" ? "awaiting calibration" : v;
  }

  function wanted() {
    return {
      tier: f.tier.value, block: f.block.value, verdict: f.verdict.value,
      critical: f.critical.checked, rater: f.rater.value,
      q: fold(f.q.value.trim())
    };
  }

  function matches(a, w) {
    if (w.tier && a.tier !== w.tier) { return false; }
    if (w.block && a.block !== w.block) { return false; }
    if (w.verdict && a.verdict !== w.verdict) { return false; }
    if (w.critical && !a.critical.length) { return false; }
    if (w.rater && a.rater !== w.rater) { return false; }
    if (w.q && haystack(a).indexOf(w.q) === -1) { return false; }
    return true;
  }

  function shorten(text, limit) {
    text = text.replace(/\s+/g, " ");
    return text.length > limit ? text.slice(0, limit - 1) + "\u2026" : text;
  }

  function lastReply(a) {
    var last = "";
    a.turns.forEach(function (t) { if (t.reply) { last = t.reply; } });
    return last;
  }

  /* a rater is named by its rules' and judges' digests: the row shows 8 hex digits of each
     (enough to tell them apart), the cell's title the whole name */
  function shortRater(name) {
    return String(name).replace(/sha256:([0-9a-f]{8})[0-9a-f]*/g, "$1");
  }

  /* the row's last column: the last reply, or while searching the first text that matched,
     with where it is ("trace", "tool result") and a little of the text around the hit */
  function excerpt(cell, a, q) {
    if (q) {
      var found = null;
      texts(a).some(function (x) {
        var h = hits(x[1], q);
        if (h.length) { found = [x[0], x[1], h[0][0]]; }
        return h.length > 0;
      });
      if (found) {
        add(cell, "span", "where", found[0] + ": ");
        var start = Math.max(0, found[2] - 30);
        var near = (start ? "\u2026" : "") + shorten(found[1].slice(start), start ? 89 : 90);
        marked(cell, near, q);
        return cell;
      }
    }
    var last = lastReply(a);
    if (!last) { add(cell, "span", "empty", a.turns.length ? "(empty reply)" : "(no turn)"); }
    return marked(cell, shorten(last, 90), q);
  }

  /* Sorting: a header button sorts by its column, a second press reverses; ties keep the
     attempts' own order (tier, block, run id, attempt). Verdicts sort worst first. */
  var VERDICT_RANK = { FAIL: 0, ERROR: 1, UNDECIDED: 2, AWAITING: 3, UNRATED: 4, PASS: 5 };
  var TIER_RANK = {};
  ALL.forEach(function (a, i) { if (!(a.tier in TIER_RANK)) { TIER_RANK[a.tier] = i; } });
  var COLLATE = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  var KEYS = {
    number: function (a) { return a.index; },
    block: function (a) { return a.block; },
    verdict: function (a) { return a.verdict in VERDICT_RANK ? VERDICT_RANK[a.verdict] : 9; },
    run: function (a) { return a.run; },
    tier: function (a) { return TIER_RANK[a.tier]; },
    rater: function (a) { return a.rater; },
    tokens: function (a) { return a.tokens; },
    reply: function (a) { return lastReply(a); }
  };

  function compare(x, y) {
    var key = KEYS[state.sort] || KEYS.number, a = key(x), b = key(y), order = 0;
    if (a === null || b === null) {  /* no value: last either way */
      if (a !== b) { return a === null ? 1 : -1; }
    } else if (typeof a === "string") {
      order = COLLATE.compare(a, b);
    } else {
      order = a - b;
    }
    return (state.desc ? -order : order) || x.index - y.index;
  }

  function sortBy(key, desc) {
    if (!KEYS[key]) { return; }
    state.sort = key;
    state.desc = desc;
    root.querySelectorAll("table.attempts thead th[data-sort]").forEach(function (th) {
      var on = th.getAttribute("data-sort") === key;
      if (on) { th.setAttribute("aria-sort", desc ? "descending" : "ascending"); } else { th.removeAttribute("aria-sort"); }
    });
  }

  function refresh() {
    var w = wanted();
    state.list = ALL.filter(function (a) { return matches(a, w); });
    state.list.sort(compare);
    state.shown = 0;
    var body = $("v-rows");
    while (body.firstChild) { body.removeChild(body.firstChild); }
    $("v-count").textContent = state.list.length + " of " + ALL.length + " attempts";
    more();
  }

  function more() {
    var body = $("v-rows"), q = wanted().q;
    var end = Math.min(state.list.length, state.shown + PAGE);
    for (var i = state.shown; i < end; i++) { body.appendChild(row(state.list[i], q)); }
    state.shown = end;
    $("v-more").hidden = state.shown >= state.list.length;
  }

  function row(a, q) {
    var tr = el("tr", "attempt");
    tr.id = "attempt-" + a.index;
    var link = add(add(tr, "td", "num"), "a", "number", a.index);
    link.href = "#attempt-" + a.index;
    link.title = "attempt " + a.index + ": link to it";
    var first = add(tr, "td", "id");
    var open = marked(add(first, "button", "open"), a.block, q);
    open.type = "button";
    open.setAttribute("aria-expanded", "false");
    add(tr, "td", verdictClass(a.verdict), verdictText(a.verdict));
    add(tr, "td", "num", a.run);
    add(tr, "td", null, a.tier);
    add(tr, "td", "rater", shortRater(a.rater)).title = a.rater;
    add(tr, "td", "num", a.tokens === null ? "\u2013" : a.tokens);
    excerpt(add(tr, "td", "excerpt"), a, q);
    open.addEventListener("click", function () { toggle(tr, a); });
    return tr;
  }

  function toggle(tr, a) {
    var next = tr.nextSibling;
    var button = tr.querySelector("button.open");
    if (next && next.className === "detail-row") {
      next.hidden = !next.hidden;
      button.setAttribute("aria-expanded", String(!next.hidden));
      return next;
    }
    var holder = el("tr", "detail-row");
    var cell = add(holder, "td");
    cell.colSpan = visibleColumns();
    cell.appendChild(detail(a, wanted().q));
    tr.parentNode.insertBefore(holder, tr.nextSibling);
    button.setAttribute("aria-expanded", "true");
    return holder;
  }

  /* a phone hides some columns: the opened attempt spans the ones that show */
  function visibleColumns() {
    var n = 0;
    root.querySelectorAll("table.attempts thead th").forEach(function (th) {
      if (th.offsetParent !== null) { n += 1; }
    });
    return n || 8;
  }

  function pre(parent, label, text, q) {
    if (!text) { return; }
    add(parent, "p", "lbl", label);
    marked(add(parent, "pre"), text, q);
  }

  /* which rule decided a criterion (evidence.decided_by), the always-FAIL rule it carries,
     and whose rule it is (origin: methodology, or an agenttest addition) */
  function decidedBy(td, c) {
    var rule = c.decided_by || c.type || (c.kind ? c.kind + " list" : "");
    add(td, "span", "rule", rule);
    if (c.rule) { add(td, "span", "fail", " \u00b7 always-FAIL: " + c.rule); }
    if (c.origin) {
      var whose = c.origin === "agenttest" ? "agenttest addition" : c.origin;
      if (c.strict_only) { whose += ": a strict-check warning, counts only with --strict"; }
      add(td, "small", "origin", whose);
    }
  }

  function callList(box, calls, q) {
    var list = add(box, "ol", "calls");
    calls.forEach(function (c) {
      var li = add(list, "li");
      var status = c.requested ? "requested, not run" : c.ok === true ? "ok" : c.ok === false ? "failed" : "outcome unknown";
      marked(add(li, "code"), c.name + "(" + c.args + ")", q);
      add(li, "span", c.ok === false ? "fail" : c.ok === true ? "pass" : "unknown", " \u2192 " + status);
      if (c.result) { marked(add(li, "pre", "result"), c.result, q); }
    });
  }

  function attemptView(a, title, q) {
    var box = el("div", "attempt-view");
    var head = add(box, "h4", null, title + " \u00b7 ");
    add(head, "span", verdictClass(a.verdict), verdictText(a.verdict));
    var facts = a.run_id + " run " + a.run + " \u00b7 rater " + a.rater;
    if (a.latency_ms !== null) { facts += " \u00b7 " + a.latency_ms + " ms"; }
    if (a.tokens !== null) { facts += " \u00b7 " + a.tokens + " tokens"; }
    if (a.evidence_source) { facts += " \u00b7 evidence: " + a.evidence_source; }
    add(box, "p", "facts", facts);
    a.evidence_notes.forEach(function (n) { marked(add(box, "p", "facts", "Note: "), n, q); });
    if (a.error) { marked(add(box, "p", "fail", "Error (" + (a.cause || a.status) + "): "), a.error, q); }
    a.critical.forEach(function (h) {
      var p = add(box, "p", "fail", "Always-FAIL " + h.rule + (h.criterion ? " (" + h.criterion + ")" : "") + ": ");
      marked(p, h.evidence, q);
    });
    if (a.criteria.length) {
      var table = add(add(box, "div", "scroll"), "table", "criteria-table");
      var hr = add(add(table, "thead"), "tr");
      ["Criterion", "Outcome", "Says", "Evidence", "Decided by"].forEach(function (h) { add(hr, "th", null, h); });
      var tb = add(table, "tbody");
      a.criteria.forEach(function (c) {
        var r = add(tb, "tr");
        marked(add(r, "td", "id"), c.id + " " + c.tag + (c.critical ? " critical" : ""), q);
        var good = c.outcome === "held" || c.outcome === "not triggered";
        var open = c.outcome === "ungraded" || c.outcome === "not applicable";
        add(r, "td", good ? "pass" : open ? "unknown" : "fail", c.outcome);
        marked(add(r, "td", "says"), c.says, q);
        marked(add(r, "td", "evidence"), c.evidence, q);
        decidedBy(add(r, "td", "decided"), c);
      });
    }
    a.turns.forEach(function (t, n) {
      var h = "Turn " + (n + 1);
      if (t.latency_ms !== null) { h += " (" + t.latency_ms + " ms" + (t.http ? ", HTTP " + t.http : "") + ")"; }
      add(box, "h5", null, h);
      pre(box, "prompt", t.prompt, q);
      if (t.reply) { pre(box, "reply", t.reply, q); } else {
        add(box, "p", "lbl", "reply");
        add(box, "pre", "empty", "(empty reply)");
      }
      if (t.steps.length) {
        /* what the model returned at each request (a model-driven agent loop) */
        add(box, "p", "lbl", "model responses");
        var steps = add(box, "ol", "calls");
        t.steps.forEach(function (s) {
          var li = add(steps, "li");
          add(li, "span", "facts", s.head);
          if (s.text) { marked(add(li, "pre", "result"), s.text, q); } else { add(li, "pre", "empty", "(no text)"); }
          s.calls.forEach(function (c) { marked(add(li, "code"), c, q); });
        });
      }
      if (t.calls.length) {
        add(box, "p", "lbl", t.hosted_calls.length ? "tool calls the agent reported" : "tool calls");
        callList(box, t.calls, q);
        if (t.more_calls) { add(box, "p", "facts", t.more_calls + " more call(s) in the run file"); }
      }
      if (t.hosted_calls.length) {
        add(box, "p", "lbl", "tool calls the harness served");
        callList(box, t.hosted_calls, q);
      }
      if (t.trace.length) {
        add(box, "p", "lbl", "trace");
        var tr = add(box, "ol", "trace");
        t.trace.forEach(function (line) { marked(add(tr, "li"), line, q); });
      }
      if (t.log.length) { pre(box, "agent log lines", t.log.join("\n"), q); }
      if (t.error) { marked(add(box, "p", "fail"), t.error, q); }
    });
    return box;
  }

  function detail(a, q) {
    var wrap = el("div", "detail");
    var base = BASE[a.block];
    if (DATA.baseline) {
      wrap.className = "detail side-by-side";
      wrap.appendChild(attemptView(a, "This run", q));
      var same = null;
      (base || []).forEach(function (b) { if (b.run === a.run) { same = b; } });
      same = same || (base && base[0]) || null;
      if (same) {
        wrap.appendChild(attemptView(same, "Baseline", q));
      } else {
        add(add(wrap, "div", "attempt-view"), "p", "facts", "The baseline has no attempt of " + a.block + ".");
      }
    } else {
      wrap.appendChild(attemptView(a, "Attempt " + a.index, q));
    }
    wrap.insertBefore(linkTo(a), wrap.firstChild);
    return wrap;
  }

  /* the attempt's address, to copy: the page without its filters, and #attempt-N */
  function linkTo(a) {
    var box = el("p", "copy-link");
    var url = location.href.split("#")[0].split("?")[0] + "#attempt-" + a.index;
    var field = add(box, "input", "link");
    field.readOnly = true;
    field.value = url;
    field.setAttribute("aria-label", "link to attempt " + a.index);
    var button = add(box, "button", null, "Copy link");
    button.type = "button";
    button.addEventListener("click", function () {
      var done = function () { button.textContent = "Copied"; };
      var fallback = function () {  /* file:// pages may not reach the clipboard API */
        field.select();
        try { if (document.execCommand("copy")) { done(); } } catch (e) { /* selected: Ctrl+C */ }
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(url).then(done, fallback);
      } else {
        fallback();
      }
    });
    return box;
  }

  function note(text) {
    var n = $("v-note");
    if (!n) {
      n = el("p", "facts unknown");
      n.id = "v-note";
      n.setAttribute("role", "status");
      $("v-count").parentNode.insertBefore(n, $("v-count"));
    }
    n.textContent = text;
    n.hidden = !text;
  }

  /* #attempt-N opens that attempt; #view-BLOCK filters to a block; any other anchor inside
     a closed <details> (e.g. a FAIL link to #fail-BLOCK) opens it and its parents. */
  function follow() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    note("");
    if (!id) { return; }
    if (id.indexOf("view-") === 0) {
      f.block.value = id.slice(5);
      refresh();
      root.scrollIntoView();
      return;
    }
    if (id.indexOf("attempt-") === 0) {
      /* attempts are numbered from 1, as shown; reports made before issue 31 used hidden
         0-based numbers, so an old link to #attempt-N opens the attempt before it here */
      var n = Number(id.slice(8)), a = n >= 1 ? ALL[n - 1] : undefined;
      if (!a || String(n) !== id.slice(8)) {
        note("There is no attempt " + id.slice(8) + " in this report: attempts are numbered 1 to " +
          ALL.length + ". Links from reports made before attempt numbers were shown counted from 0.");
        root.scrollIntoView();
        return;
      }
      if (!$(id)) {
        ["tier", "block", "verdict", "rater", "q"].forEach(function (k) { f[k].value = ""; });
        f.critical.checked = false;
        refresh();
        while (!$(id) && state.shown < state.list.length) { more(); }
      }
      var tr = $(id);
      if (tr) {
        var next = tr.nextSibling;
        if (!next || next.className !== "detail-row" || next.hidden) { toggle(tr, a); }
        tr.scrollIntoView();
      }
      return;
    }
    var target = $(id);
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") { node.open = true; }
    }
    if (target) { target.scrollIntoView(); }
  }

  /* ?tier=&block=&verdict=&critical=1&rater=&q= preset the filters (links can be shared) */
  function preset() {
    var params;
    try { params = new URLSearchParams(location.search); } catch (e) { return; }
    ["tier", "block", "verdict", "rater", "q"].forEach(function (k) {
      if (params.has(k)) { f[k].value = params.get(k); }
    });
    if (params.get("critical") === "1") { f.critical.checked = true; }
    var sort = params.get("sort") || "";  /* ?sort=tokens, ?sort=-tokens (descending) */
    var key = sort.replace(/^-/, "");
    if (KEYS[key]) { sortBy(key, sort.charAt(0) === "-"); } else { sortBy("number", false); }
  }

  ALL.forEach(function (a, i) { a.index = i + 1; });
  sortBy("number", false);  /* the number shown: 1 is the first */
  root.querySelectorAll("table.attempts thead th[data-sort]").forEach(function (th) {
    var button = th.querySelector("button");
    button.addEventListener("click", function () {
      var key = th.getAttribute("data-sort");
      sortBy(key, key === state.sort ? !state.desc : false);
      refresh();
    });
  });
  /* a click on an attempt's number opens it even when the address already names it */
  $("v-rows").addEventListener("click", function (e) {
    var link = e.target;
    if (link.className !== "number") { return; }
    e.preventDefault();
    if (location.hash === link.getAttribute("href")) { follow(); } else { location.hash = link.getAttribute("href"); }
  });
  ["tier", "block", "verdict", "rater"].forEach(function (k) { f[k].addEventListener("change", refresh); });
  f.critical.addEventListener("change", refresh);
  var timer = null;
  f.q.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  });
  /* Enter, or leaving the field, searches at once */
  f.q.addEventListener("change", function () { clearTimeout(timer); refresh(); });
  $("v-more").addEventListener("click", more);
  root.querySelector("form").addEventListener("submit", function (e) { e.preventDefault(); });
  root.hidden = false;
  $("viewer-noscript").hidden = true;
  preset();
  refresh();
  window.addEventListener("hashchange", follow);
  follow();
}());
