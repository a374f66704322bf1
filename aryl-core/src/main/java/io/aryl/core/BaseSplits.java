package io.aryl.core;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Job;
import io.aryl.core.placement.BaseSplit;
import io.aryl.core.placement.ServerTable;
import java.util.function.IntUnaryOperator;

/**
 * Running jobs' workers split into base and flexible ({@link BaseSplit}), kept from one round to
 * the next: a job whose allocation is the very object it was split from, with the same minimum,
 * splits as it did while its servers keep their place in the table and whether they are open and
 * loaned (which is all a split reads of them); most running jobs of a round are such jobs, also in
 * a round whose table changed because a few servers were lent or fenced. Immutable; a round reads
 * the last one and makes the next.
 */
final class BaseSplits {
  static final BaseSplits NONE = new BaseSplits(null, new String[0], new Split[0]);

  /**
   * One job's split.
   *
   * @param of the allocation split
   * @param base base workers by server index
   * @param flexible flexible workers by server index
   */
  record Split(
      Allocation of,
      int minWorkers,
      ServerWorkers base,
      ServerWorkers flexible,
      int flexibleCount) {}

  private final ServerTable table; // the table the splits were made on; null for none
  private final String[] jobs; // sorted
  private final Split[] splits; // by position in jobs

  private BaseSplits(ServerTable table, String[] jobs, Split[] splits) {
    this.table = table;
    this.jobs = jobs;
    this.splits = splits;
  }

  /**
   * One round's splits on {@code table}: ask for running jobs in id order, then take the memo for
   * the next round.
   */
  Round round(ServerTable table, int runningJobs) {
    return new Round(table, runningJobs);
  }

  /**
   * Which servers of {@code now} are, in {@code before}, at the same index with the same id and the
   * same open and loaned flags; null if the tables list other servers (or there was none before).
   */
  private static boolean[] keptServers(ServerTable before, ServerTable now) {
    if (before == null || before.size() != now.size()) {
      return null;
    }
    boolean[] kept = new boolean[now.size()];
    for (int s = 0; s < kept.length; s++) {
      if (!before.id(s).equals(now.id(s))) {
        return null;
      }
      kept[s] = before.open(s) == now.open(s) && before.loaned(s) == now.loaned(s);
    }
    return kept;
  }

  final class Round {
    private final ServerTable table;
    private final boolean sameTable;
    private final boolean[]
        keptServers; // when the table changed: the servers a kept split may be on; else null
    private final IntUnaryOperator preference;
    private final String[] nextJobs;
    private final Split[] nextSplits;
    private int size;
    private int cursor; // into the last round's jobs

    private Round(ServerTable table, int runningJobs) {
      this.table = table;
      this.sameTable = table == BaseSplits.this.table;
      this.keptServers = sameTable ? null : keptServers(BaseSplits.this.table, table);
      this.preference = BaseSplit.ownOpenFirst(table);
      this.nextJobs = new String[runningJobs];
      this.nextSplits = new Split[runningJobs];
    }

    /** The split of a running job's allocation; jobs must come in increasing id order. */
    @SuppressWarnings("ReferenceEquality") // a split is kept for the very allocation it was made of
    Split of(Job job, Allocation a) {
      Split split = sameTable || keptServers != null ? last(job.id()) : null;
      if (split == null
          || split.of() != a
          || split.minWorkers() != job.minWorkers()
          || (!sameTable && !(onKeptServers(split.base()) && onKeptServers(split.flexible())))) {
        BaseSplit.Parts parts = BaseSplit.split(job, a, table, preference);
        split =
            new Split(
                a,
                job.minWorkers(),
                ServerWorkers.of(parts.servers(), parts.base()),
                ServerWorkers.of(parts.servers(), parts.flexible()),
                parts.flexibleCount());
      }
      nextJobs[size] = job.id();
      nextSplits[size++] = split;
      return split;
    }

    private boolean onKeptServers(ServerWorkers workers) {
      for (int i = 0; i < workers.size(); i++) {
        if (!keptServers[workers.server(i)]) {
          return false;
        }
      }
      return true;
    }

    // Mostly the very id string the last round kept: compared by identity first, which spares
    // compareTo a walk over two equal strings.
    @SuppressWarnings("ReferenceEquality")
    private Split last(String id) {
      while (cursor < jobs.length && jobs[cursor] != id && jobs[cursor].compareTo(id) < 0) {
        cursor++;
      }
      return cursor < jobs.length && jobs[cursor].equals(id) ? splits[cursor] : null;
    }

    /** The splits this round made or kept, for the next round. */
    BaseSplits next() {
      return new BaseSplits(
          table,
          java.util.Arrays.copyOf(nextJobs, size),
          java.util.Arrays.copyOf(nextSplits, size));
    }
  }
}
