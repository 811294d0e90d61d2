import { REPORT_SYSTEM_PROMPT, reportUserPrompt } from '../addons/report-prompt.js';
import { type Report, reportSchema } from '../addons/report.schema.js';
import { type GeneratedReport, type ReportGenerator, ReportGeneratorError } from '../ports/report-generator.js';
import type { Language } from '../translation/translation.schema.js';

export interface OpenAiReportGeneratorOptions {
  /** Server root, e.g. 'http://vllm:8000' or 'https://api.openai.com' (a trailing '/v1' is tolerated). */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
}

interface ChatCompletion {
  choices?: { message?: { content?: unknown } }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

/**
 * Any OpenAI-compatible `POST /v1/chat/completions` endpoint. The model is asked for a JSON
 * object; an answer that is not a valid report is asked for once more, then the job fails with
 * a plain message (the model's text is never shown).
 */
export class OpenAiReportGenerator implements ReportGenerator {
  readonly id: string;
  private readonly root: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: OpenAiReportGeneratorOptions) {
    this.root = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.id = `openai:${options.model}`;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  private headers(): Record<string, string> {
    return { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) };
  }

  async healthy(): Promise<boolean> {
    try {
      await this.fetch(`${this.root}/v1/models`, { headers: this.headers(), signal: AbortSignal.timeout(5_000) });
      return true;
    } catch {
      return false;
    }
  }

  async generate(transcript: string, language: Language | null, signal?: AbortSignal): Promise<GeneratedReport> {
    let inputTokens = 0;
    let outputTokens = 0;
    for (let attempt = 1; ; attempt++) {
      const completion = await this.complete(transcript, language, signal);
      inputTokens += completion.inputTokens;
      outputTokens += completion.outputTokens;
      const report = parseReport(completion.content);
      if (report) return { report, inputTokens, outputTokens };
      if (attempt === 2) throw new ReportGeneratorError('invalid_output', 'The report model did not answer with a valid report, twice.');
    }
  }

  private async complete(transcript: string, language: Language | null, signal?: AbortSignal) {
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(`${this.root}/v1/chat/completions`, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({
          model: this.options.model,
          response_format: { type: 'json_object' },
          temperature: 0,
          messages: [
            { role: 'system', content: REPORT_SYSTEM_PROMPT },
            { role: 'user', content: reportUserPrompt(transcript, language) },
          ],
        }),
        signal: AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), ...(signal ? [signal] : [])]),
      });
      text = await response.text();
    } catch (error) {
      throw new ReportGeneratorError('unavailable', 'The report model could not be reached or did not answer in time.', { cause: error });
    }
    if (!response.ok) {
      const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
      throw new ReportGeneratorError(retryable ? 'unavailable' : 'rejected', `The report model answered HTTP ${response.status}.`);
    }
    let body: ChatCompletion;
    try {
      body = JSON.parse(text) as ChatCompletion;
    } catch {
      return { content: undefined, inputTokens: 0, outputTokens: 0 };
    }
    const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
    return {
      content: body.choices?.[0]?.message?.content,
      inputTokens: count(body.usage?.prompt_tokens),
      outputTokens: count(body.usage?.completion_tokens),
    };
  }
}

function parseReport(content: unknown): Report | undefined {
  if (typeof content !== 'string') return undefined;
  // Some servers wrap JSON in a Markdown fence despite response_format.
  const unfenced = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  try {
    const parsed = reportSchema.safeParse(JSON.parse(unfenced));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
