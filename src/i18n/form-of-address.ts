/**
 * How a lawyer wants to be named (issue 25 item 12; `lawyers.form_of_address`): 'female' → abogada,
 * 'male' → abogado, 'neutral' → wording that names neither ("Abogacía verificada"). A lawyer who
 * has not said (null) is named neutrally: the site never guesses from a first name.
 *
 * A catalogue string that names her with a gendered noun or adjective is a function of her form,
 * and picks its wording with `byForm`, the one place that decides what an unknown form reads as.
 */
export const FORMS_OF_ADDRESS = ['female', 'male', 'neutral'] as const;
export type FormOfAddress = (typeof FORMS_OF_ADDRESS)[number];

/** The three wordings of a phrase, one per form. */
export type ByForm<T = string> = Readonly<Record<FormOfAddress, T>>;

/** Her wording: the one for her form, the neutral one when she gave none. */
export function byForm<T>(form: FormOfAddress | null | undefined, forms: ByForm<T>): T {
  return form === 'female' || form === 'male' ? forms[form] : forms.neutral;
}

export function isFormOfAddress(value: unknown): value is FormOfAddress {
  return typeof value === 'string' && (FORMS_OF_ADDRESS as readonly string[]).includes(value);
}
