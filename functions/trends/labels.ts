// The labelled fields a trend and a hierarchy node share (spec: label, summary, label_en, label_ru,
// label_local, label_local_lang), read and shaped the same way for both.
export interface Labels {
  label: string;
  summary: string;
  label_en: string;
  label_ru: string;
  label_local: string | null;
  label_local_lang: string | null;
}

export const labelsOf = (row: Labels): Labels => ({
  label: row.label,
  summary: row.summary,
  label_en: row.label_en,
  label_ru: row.label_ru,
  label_local: row.label_local,
  label_local_lang: row.label_local_lang,
});
