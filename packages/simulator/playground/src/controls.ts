/** Small DOM helpers: an element with attributes and children, a labelled slider, a select. */

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value)
  node.append(...children)
  return node
}

export interface SliderSpec {
  readonly name: string
  readonly label: string
  readonly min: number
  readonly max: number
  readonly step: number
  readonly value: number
  /** Shown after the value: `'ms'`, `'tokens'`. */
  readonly unit: string
}

/** A range input with its label and live value; calls `onChange` with the number. */
export function slider(spec: SliderSpec, onChange: (value: number) => void, id: string): HTMLElement {
  const input = h('input', {
    type: 'range',
    id,
    name: spec.name,
    min: String(spec.min),
    max: String(spec.max),
    step: String(spec.step),
    value: String(spec.value),
  })
  const shown = h('output', { for: id }, `${spec.value} ${spec.unit}`)
  input.addEventListener('input', () => {
    shown.textContent = `${input.value} ${spec.unit}`
    onChange(Number(input.value))
  })
  return h('label', { class: 'slider' }, h('span', {}, spec.label), input, shown)
}

/** A select of `options` (value, text); calls `onChange` with the chosen value. */
export function select(
  id: string,
  label: string,
  options: readonly (readonly [string, string])[],
  value: string,
  onChange: (value: string) => void,
): HTMLElement {
  const input = h('select', { id })
  for (const [v, text] of options) input.append(h('option', { value: v }, text))
  input.value = value
  input.addEventListener('change', () => onChange(input.value))
  return h('label', { class: 'select' }, h('span', {}, label), input)
}

/** One option of a choice form: its settings as sliders, and what to build from them. */
export interface Choice<T> {
  readonly id: string
  readonly name: string
  readonly settings: readonly SliderSpec[]
  create(values: Readonly<Record<string, number>>): T
}

/** A choice on the page: a select of the options and the chosen one's sliders. */
export interface ChoiceForm<T> {
  readonly element: HTMLElement
  /** What the form is set to now, built. */
  build(): T
  choice(): Choice<T>
}

/**
 * A select of `choices` (its id is `${prefix}-${label}`) and the chosen one's sliders (`${prefix}-${name}`);
 * calls `onChange` when the choice or a setting changes.
 */
export function choiceForm<T>(
  prefix: string,
  label: string,
  choices: readonly Choice<T>[],
  initial: string,
  onChange: () => void,
): ChoiceForm<T> {
  const find = (id: string) => choices.find((c) => c.id === id) ?? choices[0]!
  const settings = h('div', { class: 'settings' })
  let choice = find(initial)
  let values: Record<string, number> = {}
  const showSettings = () => {
    values = Object.fromEntries(choice.settings.map((s) => [s.name, s.value]))
    const changed = (name: string) => (value: number) => {
      values[name] = value
      onChange()
    }
    settings.replaceChildren(...choice.settings.map((s) => slider(s, changed(s.name), `${prefix}-${s.name}`)))
  }
  const picker = select(
    `${prefix}-${label}`,
    label,
    choices.map((c) => [c.id, c.name]),
    choice.id,
    (id) => {
      choice = find(id)
      showSettings()
      onChange()
    },
  )
  showSettings()
  return {
    element: h('div', { class: 'picker' }, picker, settings),
    build: () => choice.create(values),
    choice: () => choice,
  }
}
