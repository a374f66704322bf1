package io.aryl.yarn.engine;

import io.aryl.core.model.Plan;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The promises the allocation path enforces now, and the plan book they are made of: the engine is
 * their one writer, and publishes them whole ({@link Promises}) each time the book, the fenced
 * nodes or the moves change. Read from any thread; changed under the engine's lock.
 */
final class PromisesInForce {
  private final Memory memory;
  private PlanBook book = PlanBook.EMPTY;
  private volatile Promises promises;

  PromisesInForce(Memory memory) {
    this.memory = memory;
    this.promises = new Promises(PlanBook.EMPTY, memory.fenced(), memory.drains.moving());
  }

  /** What the allocation path enforces now. */
  Promises current() {
    return promises;
  }

  /** The one target set of the last plan. */
  PlanBook book() {
    return book;
  }

  /**
   * Puts a round's plan in force at once: allocations follow the plan, which needs nothing stored.
   * Its book is the plan's targets, whose snapshot counts gangs waiting for their room as started.
   *
   * @param round the round's number
   * @return the applications whose targets changed since the last book
   */
  Set<String> plan(RoundInput input, Plan plan, long round) {
    Map<String, Integer> gpusPerWorker = new HashMap<>();
    input.state().jobs().forEach(j -> gpusPerWorker.put(j.id(), j.gpusPerWorker()));
    PlanBook previous = book;
    book = new PlanBook(plan.targets(), gpusPerWorker, round);
    publish();
    return book.changedSince(previous);
  }

  /** Publishes the book with the fenced nodes and the moves as they are now, stored. */
  void publish() {
    promises = new Promises(book, memory.fenced(), memory.drains.moving());
  }

  /**
   * Publishes the fenced nodes as they are now (a node relabelled, or lent by hand), keeping what
   * else was published.
   */
  void fencesChanged() {
    promises = new Promises(promises.book(), memory.fenced(), promises.moving());
  }

  /** Promises nothing while the engine does not act; the book stays, for the status. */
  void withdraw() {
    promises = Promises.NONE;
  }

  /** Promises nothing, and forgets the book: the engine was deposed. */
  void clear() {
    book = PlanBook.EMPTY;
    promises = Promises.NONE;
  }
}
