import { html, type Html } from './html';
import type { Problem } from './problems';

export const csrfInput = (token: string) => html`<input type="hidden" name="_csrf" value="${token}" />`;

/** A form that makes something carries a one-time token as well, so a resubmission makes nothing. */
export const onceInputs = (csrfToken: string, onceToken: string) =>
  html`${csrfInput(csrfToken)} <input type="hidden" name="_once" value="${onceToken}" />`;

/** The form-level message; it is announced as soon as the page loads. */
export function formAlert(problem: Problem | undefined): Html | '' {
  if (!problem) return '';
  const message = problem.message ?? 'Please correct the fields marked below.';
  return html`<div class="alert" role="alert" id="form-error"><p>${message}</p></div>`;
}

export interface FieldSpec {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'date';
  value?: string;
  hint?: string;
  problem?: Problem;
  required?: boolean;
  autocomplete?: string;
  /** Extra attributes, written as a trusted template. */
  attributes?: Html;
}

/** The label, hint and error of one input, tied to it with `for` and `aria-describedby`. */
function parts(spec: FieldSpec) {
  const error = spec.problem?.fields[spec.name];
  const describedBy = [spec.hint && `${spec.name}-hint`, error && `${spec.name}-error`].filter(Boolean);
  const described = describedBy.length > 0 && html` aria-describedby="${describedBy.join(' ')}"`;
  const required = spec.required && html` required`;
  const autocomplete = spec.autocomplete && html` autocomplete="${spec.autocomplete}"`;
  return {
    label: html`<label for="${spec.name}">${spec.label}</label>`,
    hint: spec.hint ? html`<p class="hint" id="${spec.name}-hint">${spec.hint}</p>` : '',
    error: error ? html`<p class="field-error" id="${spec.name}-error">${error}</p>` : '',
    attributes: html`${required}${autocomplete}${described}${error && html` aria-invalid="true"`}${spec.attributes}`,
  };
}

export function inputField(spec: FieldSpec): Html {
  const { label, hint, error, attributes } = parts(spec);
  return html`<div class="field">
    ${label}${hint}
    <input
      id="${spec.name}"
      name="${spec.name}"
      type="${spec.type ?? 'text'}"
      value="${spec.value ?? ''}"
      ${attributes}
    />
    ${error}
  </div>`;
}

// The newline right after <textarea> is not part of its value (HTML drops it), so the layout is safe.
export function textareaField(spec: FieldSpec & { rows?: number }): Html {
  const { label, hint, error, attributes } = parts(spec);
  return html`<div class="field">
    ${label}${hint}
    <textarea id="${spec.name}" name="${spec.name}" rows="${spec.rows ?? 4}" ${attributes}>
${spec.value ?? ''}</textarea>
    ${error}
  </div>`;
}

/** The name of something the user makes (a key, an app): required, at most 100 characters. */
export const nameField = (problem: Problem | undefined, value: string, hint: string) =>
  inputField({
    problem,
    name: 'name',
    label: 'Name',
    value,
    required: true,
    hint,
    attributes: html` maxlength="100"`,
  });
