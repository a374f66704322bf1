package io.aryl.sim.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The jobs submitted and not yet finished, kept in id order: the order a snapshot lists jobs in,
 * read every round. A list, not a tree: rounds read it far more often than jobs arrive or finish.
 */
final class ActiveJobs {
  private final List<SimJob> jobs = new ArrayList<>();
  private final List<SimJob> view = Collections.unmodifiableList(jobs);

  void add(SimJob j) {
    int i = indexOf(j.trace.id());
    if (i >= 0) {
      throw new IllegalStateException("job " + j.trace.id() + " is active already");
    }
    jobs.add(-i - 1, j);
  }

  void remove(SimJob j) {
    int i = indexOf(j.trace.id());
    if (i < 0 || jobs.get(i) != j) {
      throw new IllegalStateException("job " + j.trace.id() + " is not active");
    }
    jobs.remove(i);
  }

  int size() {
    return jobs.size();
  }

  /** The active jobs by id. */
  List<SimJob> inIdOrder() {
    return view;
  }

  private int indexOf(String id) {
    int lo = 0;
    int hi = jobs.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = jobs.get(mid).trace.id().compareTo(id);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -lo - 1;
  }
}
