package io.aryl.labels;

/** Where an inference-owned node is, as the loan ledger records it. */
public enum LoanState {
  /** Labelled inference: serving inference, or idle and lendable. */
  HOME,
  /** Labelled training: lent to the training pool, nobody asked for it back. */
  LOANED,
  /** Labelled training, asked back: the scheduler drains it and relabels it inference by the deadline. */
  RECLAIMING
}
