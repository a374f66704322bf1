package io.aryl.core.model;

/** The fleet a server belongs to. A server keeps its home pool while it is loaned. */
public enum Pool {
  INFERENCE,
  TRAINING
}
