package io.aryl.core.victim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A gang needs {@code need} GPUs beyond the idle ones; each candidate frees its GPUs. Candidates
 * are given in victim order (cheapest first). A team may give back only what it borrowed: {@code
 * borrowed} GPUs per team.
 */
@DisplayName("VictimChoice: which victims to preempt so that a gang fits")
class VictimChoiceTest {
  /** A running job that could be preempted. */
  record Job(String id, String team, int gpus, double cost) {
    @Override
    public String toString() {
      return id;
    }
  }

  private static Job job(String id, int gpus, double cost) {
    return new Job(id, "other", gpus, cost);
  }

  /** The gang and what it may take: fits when the victims free {@code need} GPUs. */
  static final class Gang implements VictimChoice.Trial<Job> {
    final int need;
    final Set<String> protectedJobs;
    final Map<String, Integer> borrowed;
    final List<Job> taken = new ArrayList<>();

    Gang(int need, Set<String> protectedJobs, Map<String, Integer> borrowed) {
      this.need = need;
      this.protectedJobs = protectedJobs;
      this.borrowed = new HashMap<>(borrowed);
    }

    @Override
    public boolean mayTake(Job v) {
      int left = borrowed.getOrDefault(v.team(), Integer.MAX_VALUE);
      return !protectedJobs.contains(v.id()) && !taken.contains(v) && v.gpus() <= left;
    }

    @Override
    public boolean fitsWithout(List<Job> victims) {
      return victims.stream().mapToInt(Job::gpus).sum() >= need;
    }

    @Override
    public void take(Job v) {
      taken.add(v);
      borrowed.computeIfPresent(v.team(), (t, b) -> b - v.gpus());
    }

    @Override
    public void untake(Job v) {
      taken.remove(v);
      borrowed.computeIfPresent(v.team(), (t, b) -> b + v.gpus());
    }

    @Override
    public double cost(Job v) {
      return v.cost();
    }
  }

  static Stream<Arguments> cases() {
    Job a2 = job("a", 2, 10);
    Job b2 = job("b", 2, 10);
    Job c4 = job("c", 4, 30);
    Job b2dear = job("b", 2, 25);
    Job a2even = job("a", 2, 15);
    Job b2even = job("b", 2, 15);
    Job a1 = job("a", 1, 5);
    Job b2mid = job("b", 2, 6);
    Job c3 = job("c", 3, 8);
    Job v1 = new Job("v1", "vision", 2, 10);
    Job v2 = new Job("v2", "vision", 2, 11);
    Job n1 = new Job("n1", "nlp", 2, 12);
    Map<String, Integer> none = Map.of();
    return Stream.of(
        Arguments.of(
            "several cheap victims in order beat one dearer victim that suffices alone",
            List.of(a2, b2, c4),
            4,
            Set.of(),
            none,
            List.of(a2, b2)),
        Arguments.of(
            "one victim that suffices alone beats several that cost more together",
            List.of(a2, b2dear, c4),
            4,
            Set.of(),
            none,
            List.of(c4)),
        Arguments.of(
            "on a tie, the one victim: one job disturbed rather than two",
            List.of(a2even, b2even, c4),
            4,
            Set.of(),
            none,
            List.of(c4)),
        Arguments.of(
            "the first victim that suffices alone is the cheapest that does",
            List.of(a2, c4, job("d", 8, 40)),
            4,
            Set.of(),
            none,
            List.of(c4)),
        Arguments.of(
            "victims taken in order until the gang fits; those it does not need then spared",
            List.of(a1, b2mid, c3),
            4,
            Set.of(),
            none,
            List.of(a1, c3)),
        Arguments.of(
            "a victim that may not be taken is passed over",
            List.of(a2, b2, c4),
            4,
            Set.of("c"),
            none,
            List.of(a2, b2)),
        Arguments.of(
            "reclaim quota from the borrower only: a team borrowing 2 GPUs gives back one 2-GPU job, not two",
            List.of(v1, v2, n1),
            4,
            Set.of(),
            Map.of("vision", 2, "nlp", 2),
            List.of(v1, n1)),
        Arguments.of(
            "nobody is preempted when the gang fits neither way",
            List.of(a2, b2, c4),
            9,
            Set.of(),
            none,
            null),
        Arguments.of(
            "nobody is preempted when no one may be taken",
            List.of(a2, b2),
            2,
            Set.of("a", "b"),
            none,
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void choose(
      String what,
      List<Job> candidates,
      int need,
      Set<String> protectedJobs,
      Map<String, Integer> borrowed,
      List<Job> expected) {
    Gang gang = new Gang(need, protectedJobs, borrowed);

    List<Job> chosen = VictimChoice.choose(candidates, gang);

    if (expected == null) {
      assertThat(chosen).isNull();
    } else {
      assertThat(chosen).containsExactlyElementsOf(expected);
    }
    assertThat(gang.taken).as("nothing left taken: the caller preempts what is chosen").isEmpty();
    assertThat(gang.borrowed)
        .as("borrowing as it was")
        .isEqualTo(new Gang(need, protectedJobs, borrowed).borrowed);
  }
}
