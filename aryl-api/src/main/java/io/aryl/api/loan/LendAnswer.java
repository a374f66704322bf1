package io.aryl.api.loan;

import java.util.List;

/**
 * The answer ({@code 201}) to a {@link LendRequest}: the nodes now labelled training, and those
 * that stayed home because something started on them between the request and their relabel.
 *
 * @param lent nodes lent
 * @param keptHome nodes that stayed home
 */
public record LendAnswer(List<String> lent, List<String> keptHome) {
  public LendAnswer {
    lent = List.copyOf(lent);
    keptHome = List.copyOf(keptHome);
  }
}
