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
