/* Text search for the attempt viewer (viewer.js, inlined after this file under the same
   CSP hash): folding, matching and marking hits. Marks are built as nodes, never markup. */
var agenttestText = (function () {
  "use strict";

  /* Search is case- and accent-insensitive and Unicode-correct: each character with its
     combining marks is one unit, folded on its own (NFKD, marks dropped, upper then lower
     case: "İ" and "ı" are "i", "ß" is "ss", "é" is "e"), and every folded code unit
     remembers the unit it came from. A hit in the folded text therefore maps back to whole
     characters of the text shown: offsets never come from a string of another length
     (issue 32 #24: toLowerCase() turns "İ" into two code units and shifted every mark after it). */
  var UNIT = /\P{M}\p{M}*|\p{M}+/gu, MARKS = /\p{M}/gu, ASCII = /^[\x00-\x7f]*$/;


  /* {text, from, to}: the folded text and, per folded code unit, the span it came from */
  function folded(text, spans) {
    if (ASCII.test(text)) { return { text: text.toLowerCase(), from: null, to: null }; }
    var out = [], from = [], to = [], m;
    UNIT.lastIndex = 0;
    while ((m = UNIT.exec(text)) !== null) {
      var f = fold(m[0]);
      out.push(f);
      if (spans) {
        for (var i = 0; i < f.length; i++) { from.push(m.index); to.push(m.index + m[0].length); }
      }
    }
    return { text: out.join(""), from: spans ? from : null, to: spans ? to : null };
  }

  /* the same folded text for a whole string at once (the filter's haystack, folded once per
     attempt): case mapping is per character but for the final sigma, made plain here too */
  function fold(text) {
    text = String(text || "");
    if (ASCII.test(text)) { return text.toLowerCase(); }
    var f = text.normalize("NFKD").replace(MARKS, "").toUpperCase().toLowerCase();
    return f.normalize("NFKD").replace(MARKS, "").replace(/\u03c2/g, "\u03c3");
  }

  /* the spans of the shown text that match the folded query q, in order */
  function hits(text, q) {
    var f = folded(text, true), out = [], at = 0, hit;
    while (q && (hit = f.text.indexOf(q, at)) !== -1) {
      var end = hit + q.length;
      var start = f.from ? f.from[hit] : hit, stop = f.to ? f.to[end - 1] : end;
      if (out.length && start < out[out.length - 1][1]) { start = out[out.length - 1][1]; }
      if (stop > start) { out.push([start, stop]); }
      at = end;
    }
    return out;
  }

  /* text with every hit of q wrapped in <mark>, built as nodes, never as markup */
  function marked(parent, text, q) {
    text = String(text === undefined || text === null ? "" : text);
    var at = 0;
    hits(text, q).forEach(function (h) {
      parent.appendChild(document.createTextNode(text.slice(at, h[0])));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(h[0], h[1]);
      parent.appendChild(mark);
      at = h[1];
    });
    parent.appendChild(document.createTextNode(text.slice(at)));
    return parent;
  }

  return { fold: fold, hits: hits, marked: marked };
}());
