package io.aryl.am;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rule by which a new AM attempt takes over the previous attempt's running generation: adopt it
 * once exactly its members are back, untouched on their recorded hosts; give it up as soon as that
 * cannot happen (a member ended, a container that is not a member came back, a member was
 * signalled) or when the wait is over with members missing; else wait. Pure: no YARN calls.
 */
final class Adoption {
  enum Decision {
    WAIT,
    ADOPT,
    REFUSE
  }

  /** What to do now, and why when refused. */
  record Verdict(Decision decision, String reason) {}

  private final GenerationRecord record;
  private final long deadline;
  private final long waitMs;
  private final Set<String> ended = new HashSet<>();

  /**
   * @param waitMs the longest wait for missing members, from {@code now}
   */
  Adoption(GenerationRecord record, long now, long waitMs) {
    if (!record.running()) {
      throw new IllegalArgumentException("only a running generation can be adopted, was " + record);
    }
    this.record = record;
    this.waitMs = waitMs;
    this.deadline = now + waitMs;
  }

  GenerationRecord record() {
    return record;
  }

  /** A container ended: if it was a member, the generation can no longer be adopted. */
  void ended(String id) {
    ended.add(id);
  }

  /** Judges the workers held now (recovered untouched ones are RUNNING with generation -1). */
  Verdict verdict(Collection<Membership.Worker> workers, long now) {
    Map<String, String> recordedHosts = record.generation().hosts();
    List<String> gone = recordedHosts.keySet().stream().filter(ended::contains).toList();
    if (!gone.isEmpty()) {
      return refuse("member " + String.join(", ", gone) + " ended");
    }
    List<String> present = new ArrayList<>();
    for (Membership.Worker w : workers) {
      String recordedHost = recordedHosts.get(w.id());
      if (recordedHost == null) {
        return refuse(w.id() + " on " + w.host() + " came back too but is not a member");
      }
      if (!recordedHost.equals(w.host())) {
        return refuse(w.id() + " came back on " + w.host() + ", recorded on " + recordedHost);
      }
      if (w.state() != Membership.State.RUNNING || w.generation() != -1) {
        return refuse(w.id() + " was " + w.state() + " before the adoption");
      }
      present.add(w.id());
    }
    if (present.size() == recordedHosts.size()) {
      return new Verdict(Decision.ADOPT, "");
    }
    if (now >= deadline) {
      List<String> missing =
          recordedHosts.keySet().stream().filter(id -> !present.contains(id)).toList();
      return refuse(
          missing.size()
              + " of "
              + recordedHosts.size()
              + " members did not come back within "
              + waitMs
              + " ms: "
              + String.join(", ", missing));
    }
    return new Verdict(Decision.WAIT, "");
  }

  private Verdict refuse(String why) {
    return new Verdict(
        Decision.REFUSE,
        "generation "
            + record.generation().number()
            + " from attempt "
            + record.attempt()
            + " not adopted: "
            + why);
  }
}
