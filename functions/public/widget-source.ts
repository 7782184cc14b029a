// The embeddable widget, served as /public/widget.js: a dependency-free custom element
// <discover-profile domain="example.com" theme="light|dark" limit="3" api="https://...">, in a
// shadow DOM, that fetches the public check (no cookies, no other origin) and renders the profile
// card, a "no profile" state or an error state. Kept as plain ES2019 in a string (no backticks or
// template substitutions inside) so that no bundler rewrites it; the browser test runs it.
export const WIDGET_SOURCE = String.raw`(function () {
  'use strict';
  if (typeof customElements === 'undefined' || customElements.get('discover-profile')) return;
  var script = document.currentScript;
  var defaultApi = script && script.src ? new URL(script.src).origin : location.origin;

  var CSS = [
    ':host{display:block;max-width:380px;font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;',
    '--dp-bg:#fff;--dp-fg:#1f2328;--dp-muted:#59636e;--dp-border:#d1d9e0;--dp-accent:#1a73e8}',
    ':host([theme=dark]){--dp-bg:#1e1f22;--dp-fg:#e8eaed;--dp-muted:#9aa0a6;--dp-border:#3c4043;--dp-accent:#8ab4f8}',
    '.card{background:var(--dp-bg);color:var(--dp-fg);border:1px solid var(--dp-border);border-radius:12px;padding:14px 16px}',
    'h2{font-size:16px;margin:0 0 2px}a{color:var(--dp-accent);text-decoration:none}a:hover{text-decoration:underline}',
    '.meta{color:var(--dp-muted);font-size:13px;margin-bottom:10px}',
    'ul{list-style:none;margin:0;padding:0}li{display:flex;gap:10px;align-items:flex-start;padding:6px 0;border-top:1px solid var(--dp-border)}',
    'img{width:64px;height:48px;object-fit:cover;border-radius:6px;flex:none;background:var(--dp-border)}',
    '.t{font-weight:500}.d{color:var(--dp-muted);font-size:12px}.state{color:var(--dp-muted)}.error{color:#d93025}'
  ].join('');

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }

  function safeHref(url) {
    return /^https?:\/\//i.test(url) ? url : '#';
  }

  function day(iso) {
    var d = new Date(iso);
    return isNaN(d.getTime()) ? '' : d.toISOString().slice(0, 10);
  }

  class DiscoverProfile extends HTMLElement {
    static get observedAttributes() { return ['domain', 'theme', 'limit', 'api']; }

    constructor() {
      super();
      this.root = this.attachShadow({ mode: 'open' });
      this.seq = 0;
    }

    connectedCallback() { this.load(); }

    attributeChangedCallback(name, before, after) {
      if (this.isConnected && before !== after && name !== 'theme') this.load();
    }

    show(state, children) {
      this.setAttribute('data-state', state);
      this.root.textContent = '';
      this.root.appendChild(el('style', {}, [CSS]));
      this.root.appendChild(el('div', { class: 'card', part: 'card', role: 'group', 'aria-label': 'Discover profile' }, children));
    }

    load() {
      var domain = (this.getAttribute('domain') || '').trim();
      var api = (this.getAttribute('api') || defaultApi).replace(/\/$/, '');
      var limit = Math.max(0, Math.min(6, parseInt(this.getAttribute('limit') || '3', 10) || 0));
      var seq = ++this.seq;
      var self = this;
      this.show('loading', [el('div', { class: 'state' }, ['Checking ' + (domain || 'domain') + '\u2026'])]);
      fetch(api + '/public/platform-profile?domain=' + encodeURIComponent(domain), { credentials: 'omit', mode: 'cors' })
        .then(function (res) {
          return res.json().then(function (body) {
            if (!res.ok) throw new Error(res.status === 429 ? 'Too many checks, try again shortly' : 'Not a valid domain');
            return body;
          });
        })
        .then(function (profile) { if (seq === self.seq) self.render(profile, limit); })
        .catch(function (err) {
          if (seq !== self.seq) return;
          self.show('error', [el('div', { class: 'error' }, ['Could not check ' + (domain || 'this domain') + ': ' + (err && err.message ? err.message : 'network error')])]);
        });
    }

    render(p, limit) {
      if (!p.exists) {
        this.show('none', [el('div', { class: 'state' }, ['No Discover profile for ' + p.domain + ' yet.'])]);
        return;
      }
      var items = (p.recentPublications || []).slice(0, limit).map(function (pub) {
        var img = pub.imageUrl
          ? el('img', { src: safeHref(pub.imageUrl), alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' })
          : el('span', {});
        // A lead image that fails to load leaves an empty tile, not a broken-image icon.
        img.addEventListener('error', function () { img.style.visibility = 'hidden'; });
        var link = el('a', { href: safeHref(pub.url), target: '_blank', rel: 'noopener noreferrer', class: 't' }, [pub.title]);
        return el('li', {}, [img, el('div', {}, [link, el('div', { class: 'd' }, [pub.sourceLabel + ' \u00b7 ' + day(pub.publishedAt)])])]);
      });
      var title = el('h2', {}, [p.profileUrl ? el('a', { href: safeHref(p.profileUrl), target: '_blank', rel: 'noopener' }, [p.title]) : p.title]);
      var meta = el('div', { class: 'meta' }, [p.domain + (p.totalFollowers ? ' \u00b7 ' + p.totalFollowers + ' followers' : '')]);
      this.show('profile', [title, meta].concat(items.length ? [el('ul', {}, items)] : []));
    }
  }

  customElements.define('discover-profile', DiscoverProfile);
})();
`;
