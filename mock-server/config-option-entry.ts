/**
 * One setting as an option table writes it (config-options.ts gathers the tables): its type is its
 * default's, its flag and environment variable are named after its key unless it names others.
 */
export interface OptionEntry {
  description: string;
  default: string | number;
  /** What --help shows as the default when the value itself says too little (empty, derived, a big number). */
  shownDefault?: string;
  flag?: string;
  env?: string;
  /** A number: the least value taken (0 unless given), and whether it must be whole. */
  least?: number;
  whole?: boolean;
  /** A string: the only values taken. */
  choices?: readonly string[];
}

/** The settings a table of options makes, each a number or a string as its default is. */
export type SettingsOf<Table> = {
  [Key in keyof Table]: Table[Key] extends { default: number } ? number : string;
};
