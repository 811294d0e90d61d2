/** The part of gettext-parser 10 (which ships no types) that scripts/build-catalogue-dictionaries.ts and its test use. */
declare module 'gettext-parser' {
  export interface GetTextTranslation {
    msgctxt?: string;
    msgid: string;
    msgid_plural?: string;
    msgstr: string[];
  }
  export interface GetTextTranslations {
    charset: string;
    headers: Record<string, string>;
    translations: Record<string, Record<string, GetTextTranslation>>;
  }
  export const mo: {
    parse(buffer: Buffer, defaultCharset?: string): GetTextTranslations;
    compile(data: GetTextTranslations): Buffer;
  };
}
