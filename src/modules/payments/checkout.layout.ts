/**
 * The hosted checkout page's frame: the HTML document around each step, its style sheet
 * and its script (status polling, the timed redirect, the form's browser check, local
 * times), both sent inline under the response's CSP nonce. Every value is HTML-escaped.
 */

export function esc(value: string | number | bigint | boolean | null | undefined): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export interface PageOptions {
  nonce: string;
  title: string;
  body: string;
  /** Seconds until the browser reloads; 0 = never. */
  refreshSeconds?: number;
  /** Only without JavaScript (the script polls instead). */
  refreshWithoutScript?: boolean;
  /** Navigate here after `refreshSeconds` instead of reloading. */
  refreshTo?: string;
  /** Data for the polling script; absent = no polling. */
  poll?: { statusUrl: string; status: string };
  redirectTo?: { url: string; seconds: number };
}

const STYLE = `
:root{color-scheme:light;--ink:#1f2933;--muted:#616e7c;--line:#d9e2ec;--brand:#0b6bcb;--ok:#18794e;--bad:#b42318;--bg:#f5f7fa}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Thai",sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:28rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid var(--line);border-radius:12px;padding:1.25rem;margin:0 0 1rem}
.merchant{font-size:.9rem;color:var(--muted);margin:0}.amount{font-size:1.9rem;font-weight:700;margin:.1rem 0 0}
h1{font-size:1.25rem;margin:0 0 .75rem}h2{font-size:1.05rem;margin:0 0 .75rem}
.option{display:flex;gap:.75rem;align-items:flex-start;border:1px solid var(--line);border-radius:10px;padding:.8rem;margin:0 0 .6rem;cursor:pointer}
.option:has(input:checked){border-color:var(--brand);box-shadow:0 0 0 2px rgba(11,107,203,.15)}
.option input{margin-top:.3rem;width:1.2rem;height:1.2rem}.option small{display:block;color:var(--muted)}
label.field{display:block;margin:0 0 1rem;font-weight:600}
label.field input{display:block;width:100%;margin-top:.3rem;padding:.75rem;font:inherit;border:1px solid #9aa5b1;border-radius:8px}
label.field input[aria-invalid=true]{border-color:var(--bad)}
.hint{display:block;font-weight:400;font-size:.85rem;color:var(--muted)}.error{display:block;font-weight:600;font-size:.9rem;color:var(--bad)}
.alert{border-radius:8px;padding:.75rem;margin:0 0 1rem;background:#fde8e8;color:var(--bad)}
button,.button{display:block;width:100%;padding:.9rem;font:inherit;font-weight:700;text-align:center;color:#fff;background:var(--brand);border:0;border-radius:10px;text-decoration:none;cursor:pointer}
.secondary{background:#fff;color:var(--brand);border:1px solid var(--brand);margin-top:.6rem}
.qr{display:block;width:min(100%,260px);height:auto;margin:0 auto 1rem;image-rendering:pixelated}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:0}dt{color:var(--muted)}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
@media (max-width:360px){main{padding:.6rem}.card{padding:1rem}dl{grid-template-columns:1fr;gap:0}dd{margin:0 0 .5rem}}
.status{font-weight:700}.ok{color:var(--ok)}.bad{color:var(--bad)}.muted{color:var(--muted);font-size:.9rem}
a{color:var(--brand)}
`;

const SCRIPT = `
(function(){
  var cfg=document.getElementById('poll');
  if(cfg){var url=cfg.getAttribute('data-url'),status=cfg.getAttribute('data-status');
    var tick=function(){fetch(url,{cache:'no-store',headers:{accept:'application/json'}}).then(function(r){return r.json()}).then(function(j){
      if(j&&j.status&&j.status!==status){location.replace(location.pathname);}else{setTimeout(tick,1500);}
    }).catch(function(){setTimeout(tick,3000)});};
    setTimeout(tick,1500);}
  var go=document.getElementById('redirect');
  if(go){setTimeout(function(){location.assign(go.getAttribute('data-url'))},Number(go.getAttribute('data-seconds'))*1000);}
  var form=document.querySelector('form[data-validate]');
  if(form){
    var show=function(inp,msg){var id='e-'+inp.name,el=document.getElementById(id);
      if(!msg){if(el){el.parentNode.removeChild(el);}inp.removeAttribute('aria-invalid');inp.removeAttribute('aria-describedby');return;}
      if(!el){el=document.createElement('span');el.className='error';el.id=id;el.setAttribute('role','alert');inp.parentNode.appendChild(el);}
      el.textContent=msg;inp.setAttribute('aria-invalid','true');inp.setAttribute('aria-describedby',id);};
    var check=function(inp){var v=inp.value.replace(/\s+/g,' ').trim(),d=inp.dataset;
      if(d.strip){v=v.replace(new RegExp(d.strip,'g'),'');}
      if(!v){return d.missing;}
      if(v.length>Number(d.max)||(d.pattern&&!new RegExp(d.pattern,'u').test(v))){return d.invalid;}
      return '';};
    var inputs=form.querySelectorAll('input[data-missing]');
    inputs.forEach(function(inp){inp.addEventListener('input',function(){if(inp.getAttribute('aria-invalid')==='true'&&!check(inp)){show(inp,'');}});});
    form.addEventListener('submit',function(ev){var first=null;
      inputs.forEach(function(inp){var msg=check(inp);show(inp,msg);if(msg&&!first){first=inp;}});
      if(first){ev.preventDefault();first.focus();return;}
      var b=form.querySelector('button[type=submit]');if(b){setTimeout(function(){b.disabled=true;},0);}
    });
  }
  document.querySelectorAll('time[data-local]').forEach(function(t){var d=new Date(t.getAttribute('datetime'));if(!isNaN(d)){t.textContent=d.toLocaleString([],{dateStyle:'medium',timeStyle:'short'});}});
})();
`;

export function renderPage(o: PageOptions): string {
  const meta = o.refreshSeconds ? `<meta http-equiv="refresh" content="${o.refreshSeconds}${o.refreshTo ? `;url=${esc(o.refreshTo)}` : ''}">` : '';
  const refresh = meta && o.refreshWithoutScript ? `<noscript>${meta}</noscript>` : meta;
  const poll = o.poll ? `<div id="poll" hidden data-url="${esc(o.poll.statusUrl)}" data-status="${esc(o.poll.status)}"></div>` : '';
  const redirect = o.redirectTo ? `<div id="redirect" hidden data-url="${esc(o.redirectTo.url)}" data-seconds="${o.redirectTo.seconds}"></div>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(o.title)}</title>${refresh}
<style nonce="${o.nonce}">${STYLE}</style></head>
<body><main>${o.body}</main>${poll}${redirect}<script nonce="${o.nonce}">${SCRIPT}</script></body></html>`;
}
