// The portal's one script: forms marked data-api call Lore's REST API with the session (and its
// CSRF token), and show the outcome. Without JavaScript the pages still show everything they hold.
'use strict';
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

  async function call(method, path, body, headers) {
    const init = { method, credentials: 'same-origin', headers: Object.assign({ 'X-CSRF-Token': csrf }, headers) };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    const text = await res.text();
    let data;
    try { data = text ? JSON.parse(text) : null; } catch { data = text; }
    if (!res.ok) {
      const fields = data && Array.isArray(data.fields) ? ' (' + data.fields.map((f) => f.field + ': ' + f.message).join('; ') + ')' : '';
      const error = new Error(((data && data.message) || res.statusText) + fields);
      error.status = res.status;
      throw error;
    }
    return data;
  }

  /** The form's named fields as a JSON body, path values and headers. */
  function collect(form, pathTemplate) {
    const body = {};
    const headers = {};
    let path = pathTemplate;
    for (const el of form.elements) {
      if (!el.name || el.disabled) continue;
      let value;
      if (el.type === 'checkbox') value = el.checked;
      else if (el.type === 'number') value = el.value === '' ? undefined : Number(el.value);
      else if (el.dataset.json !== undefined) value = el.value.trim() === '' ? undefined : JSON.parse(el.value);
      else value = el.value === '' && el.dataset.keepEmpty === undefined ? undefined : el.value;
      if (el.dataset.header) { if (value !== undefined) headers[el.dataset.header] = String(value); continue; }
      if (path.includes('{' + el.name + '}')) { path = path.replace('{' + el.name + '}', encodeURIComponent(String(value))); continue; }
      if (value !== undefined) body[el.name] = value;
    }
    return { body, headers, path };
  }

  function say(form, message, kind) {
    const box = form.querySelector('.form-error') || form.appendChild(Object.assign(document.createElement('div'), { className: 'form-error' }));
    box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    box.className = kind === 'error' ? 'form-error' : 'ok';
    box.textContent = message;
  }

  function showSecret(form, label, secret) {
    const out = form.querySelector('output') || form.appendChild(document.createElement('output'));
    out.innerHTML = '';
    const box = document.createElement('div');
    box.className = 'secret';
    const strong = document.createElement('strong');
    strong.textContent = label;
    const code = document.createElement('code');
    code.textContent = secret;
    code.id = 'secret-' + Math.random().toString(36).slice(2);
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'secondary';
    copy.textContent = 'Copy';
    copy.addEventListener('click', async () => {
      await navigator.clipboard.writeText(secret).catch(() => undefined);
      copy.textContent = 'Copied';
    });
    box.append(strong, code, copy);
    out.append(box);
  }

  /** Follows a job to its end; the list named (`data-refresh`) is refreshed whenever the job's status changes. */
  async function watchJob(form, jobId, list) {
    const progress = form.querySelector('progress') || form.appendChild(document.createElement('progress'));
    progress.max = 1;
    progress.value = 0;
    let seen;
    for (;;) {
      const job = await call('GET', '/v1/jobs/' + encodeURIComponent(jobId));
      if (list && job.status !== seen) await refresh(list);
      seen = job.status;
      const total = job.total_chunks || 0;
      progress.max = Math.max(total, 1);
      progress.value = job.processed_chunks || 0;
      say(form, 'Job ' + job.status + (total ? ': ' + job.processed_chunks + ' of ' + total + ' chunks' : ''), 'status');
      if (job.status === 'completed') return;
      if (job.status === 'failed') throw new Error('The job failed: ' + ((job.error && (job.error.message || job.error.code)) || 'unknown error'));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /**
   * Replaces the element with this id by its copy in a fresh load of this page: a list shows what a
   * form changed, while everything else on the page (a search being typed, a key shown once, a
   * message) stays. When the fresh page lacks it (the session has ended), the page is loaded whole.
   */
  async function refresh(id) {
    const res = await fetch(location.href, { credentials: 'same-origin' });
    const next = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById(id);
    const current = document.getElementById(id);
    if (res.ok && next && current) current.replaceWith(document.adoptNode(next));
    else location.reload();
  }

  function showResults(form, results) {
    const list = form.querySelector('ol.results') || form.appendChild(Object.assign(document.createElement('ol'), { className: 'results' }));
    list.innerHTML = '';
    for (const r of results) {
      const item = document.createElement('li');
      const title = document.createElement('strong');
      title.textContent = (r.document_title || r.title || r.document_id) + ' ';
      const score = document.createElement('span');
      score.className = 'muted';
      score.textContent = typeof r.score === 'number' ? '(' + r.score.toFixed(3) + ')' : '';
      const text = document.createElement('p');
      text.textContent = (r.content || r.text || '').slice(0, 400);
      item.append(title, score, text);
      list.append(item);
    }
    if (!results.length) say(form, 'No matching chunks.', 'status');
  }

  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    // A destructive action asks first, whether this script or the portal's own form handler carries it out.
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    if (!form.dataset.api) return;
    event.preventDefault();
    const [method, pathTemplate] = form.dataset.api.split(' ');
    const submit = form.querySelector('button[type="submit"], button:not([type])');
    if (submit) submit.disabled = true;
    try {
      let request;
      if (form.dataset.multipart !== undefined) {
        const data = new FormData();
        const meta = {};
        for (const el of form.elements) {
          if (!el.name) continue;
          if (el.type === 'file') { if (el.files[0]) data.append(el.name, el.files[0]); }
          else if (el.value !== '') meta[el.name] = el.value;
        }
        data.append('metadata', JSON.stringify(meta));
        request = { body: data, headers: {}, path: pathTemplate };
      } else {
        request = collect(form, pathTemplate);
        if (method === 'GET' || method === 'DELETE' || form.dataset.noBody !== undefined) request.body = undefined;
      }
      const result = await call(method, request.path, request.body, request.headers);
      const then = form.dataset.then;
      const list = form.dataset.refresh;
      if (then === 'key') showSecret(form, 'Your new key (shown only now):', result.key);
      else if (then === 'job') { await watchJob(form, result.job_id, list); say(form, 'Done: the document is searchable.', 'status'); }
      else if (then === 'results') showResults(form, result.results || []);
      else if (then === 'export') {
        const out = form.querySelector('output') || form.appendChild(document.createElement('output'));
        out.innerHTML = '';
        const a = document.createElement('a');
        a.href = result.download_url;
        a.textContent = 'Download the export (ZIP; the link works for 24 hours)';
        out.append(a);
      } else if (then === 'signed-out') location.assign('/portal/sign-in?deleted=1');
      // A form over a list refreshes it in place (what is typed or shown elsewhere stays); others reload the page.
      if (list && then !== 'job') await refresh(list);
      else if (!then) { say(form, 'Saved.', 'status'); location.reload(); }
    } catch (error) {
      say(form, error.message, 'error');
    } finally {
      if (submit) submit.disabled = false;
    }
  });
})();
