package io.aryl.yarn.state;

import java.util.List;

/** @param inference names of the nodes the inference pool owns, sorted */
public record Owners(List<String> inference) {
  public Owners {
    inference = List.copyOf(inference);
  }
}
