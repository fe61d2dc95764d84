// The `size` of a view (docs/spec/service.md "Projections"): the smallest tree size whose leaves
// include every index the view derives from, so the checkpoint note the app attaches (of
// that size or larger) commits to all of them. 0 when the view rests on no leaf.

export const sizeCovering = (indexes: Iterable<number | null>): number => {
  let size = 0
  for (const index of indexes) if (index !== null && index + 1 > size) size = index + 1
  return size
}
