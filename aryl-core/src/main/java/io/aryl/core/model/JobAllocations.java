package io.aryl.core.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.SortedMap;

/**
 * Running jobs' allocations by job id, sorted by id: an immutable sorted map kept as two arrays. A
 * round walks every running job's allocation once or twice ({@link #jobAt(int)}, {@link
 * #allocationAt(int)}); arrays make that walk, and making the map from jobs already in id order,
 * linear, with no entry objects to build.
 *
 * <p>Only non-empty allocations are held. Views ({@link #subMap}, {@link #headMap}, {@link
 * #tailMap}) are copies, which no one can tell apart from views of a map that never changes.
 */
// A SortedMap, so that readers may rely on its order; the further methods of a NavigableMap would
// be code no caller runs.
@SuppressWarnings("JdkObsolete")
public final class JobAllocations extends AbstractMap<String, Allocation>
    implements SortedMap<String, Allocation> {
  public static final JobAllocations EMPTY = new JobAllocations(new String[0], new Allocation[0]);

  private final String[] jobs; // sorted, unique
  private final Allocation[] allocations; // each non-empty, by position in jobs

  private JobAllocations(String[] jobs, Allocation[] allocations) {
    this.jobs = jobs;
    this.allocations = allocations;
  }

  /**
   * The non-empty allocations of {@code allocations}. Linear when the map is sorted by id (a {@link
   * SortedMap} in natural order, as a caller keeping its running jobs in a {@code TreeMap} has
   * them); a map of this class is returned as it is.
   */
  public static JobAllocations of(Map<String, Allocation> allocations) {
    if (allocations instanceof JobAllocations ready) {
      return ready;
    }
    Builder b = new Builder(allocations.size());
    for (Map.Entry<String, Allocation> e : allocations.entrySet()) {
      b.put(e.getKey(), e.getValue());
    }
    return b.build();
  }

  /**
   * Collects allocations in any order; sorts them by job id once, at {@link #build()}, if they came
   * unsorted.
   */
  public static final class Builder {
    private String[] jobs;
    private Allocation[] allocations;
    private int size;
    private boolean sorted = true;

    public Builder(int expectedSize) {
      jobs = new String[Math.max(4, expectedSize)];
      allocations = new Allocation[jobs.length];
    }

    /** Adds a job's allocation; an empty one is left out. */
    public Builder put(String job, Allocation allocation) {
      if (job == null || allocation == null) {
        throw new IllegalArgumentException(
            "allocation of job(" + job + ") must name a job and not be null, was " + allocation);
      }
      if (allocation.isEmpty()) {
        return this;
      }
      if (size == jobs.length) {
        jobs = Arrays.copyOf(jobs, size * 2);
        allocations = Arrays.copyOf(allocations, size * 2);
      }
      if (size > 0 && jobs[size - 1].compareTo(job) >= 0) {
        sorted = false;
      }
      jobs[size] = job;
      allocations[size++] = allocation;
      return this;
    }

    /** The map; refuses a job given twice. */
    public JobAllocations build() {
      String[] j = Arrays.copyOf(jobs, size);
      Allocation[] a = Arrays.copyOf(allocations, size);
      if (!sorted) {
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
          order[i] = i;
        }
        Arrays.sort(order, Comparator.comparing((Integer i) -> jobs[i]));
        for (int i = 0; i < size; i++) {
          j[i] = jobs[order[i]];
          a[i] = allocations[order[i]];
        }
        for (int i = 1; i < size; i++) {
          if (j[i - 1].equals(j[i])) {
            throw new IllegalArgumentException(
                "allocation job id must be unique, '" + j[i] + "' appears twice");
          }
        }
      }
      return size == 0 ? EMPTY : new JobAllocations(j, a);
    }
  }

  /**
   * This map with job {@code id}'s allocation set to {@code a}; an empty {@code a} takes the job
   * out.
   */
  @SuppressWarnings("ReferenceEquality") // the very allocation it holds changes nothing
  public JobAllocations with(String id, Allocation a) {
    if (id == null || a == null) {
      throw new IllegalArgumentException(
          "allocation of job(" + id + ") must name a job and not be null, was " + a);
    }
    int i = Arrays.binarySearch(jobs, id);
    if (i >= 0) {
      if (a.isEmpty()) {
        return remove(i);
      }
      if (allocations[i] == a) {
        return this;
      }
      Allocation[] changed = allocations.clone();
      changed[i] = a;
      return new JobAllocations(jobs, changed);
    }
    if (a.isEmpty()) {
      return this;
    }
    int at = -i - 1;
    String[] j = new String[jobs.length + 1];
    Allocation[] al = new Allocation[j.length];
    System.arraycopy(jobs, 0, j, 0, at);
    System.arraycopy(allocations, 0, al, 0, at);
    j[at] = id;
    al[at] = a;
    System.arraycopy(jobs, at, j, at + 1, jobs.length - at);
    System.arraycopy(allocations, at, al, at + 1, jobs.length - at);
    return new JobAllocations(j, al);
  }

  /**
   * This map with every allocation of {@code changes} (sorted by job id) set as {@link
   * #with(String, Allocation)} does, in one copy: a round changes a few allocations of hundreds.
   */
  public JobAllocations with(SortedMap<String, Allocation> changes) {
    if (changes.isEmpty()) {
      return this;
    }
    if (changes.comparator() != null) {
      throw new IllegalArgumentException("changes must be sorted by job id in natural order");
    }
    String[] j = new String[jobs.length + changes.size()];
    Allocation[] al = new Allocation[j.length];
    int n = 0;
    int i = 0; // jobs before i are copied or replaced
    for (Map.Entry<String, Allocation> e : changes.entrySet()) {
      String id = e.getKey();
      Allocation a = e.getValue();
      if (id == null || a == null) {
        throw new IllegalArgumentException(
            "allocation of job(" + id + ") must name a job and not be null, was " + a);
      }
      int found = Arrays.binarySearch(jobs, i, jobs.length, id);
      int upTo = found >= 0 ? found : -found - 1;
      System.arraycopy(jobs, i, j, n, upTo - i);
      System.arraycopy(allocations, i, al, n, upTo - i);
      n += upTo - i;
      if (!a.isEmpty()) {
        j[n] = id;
        al[n++] = a;
      }
      i = found >= 0 ? found + 1 : upTo;
    }
    System.arraycopy(jobs, i, j, n, jobs.length - i);
    System.arraycopy(allocations, i, al, n, jobs.length - i);
    n += jobs.length - i;
    return n == 0 ? EMPTY : new JobAllocations(Arrays.copyOf(j, n), Arrays.copyOf(al, n));
  }

  private JobAllocations remove(int i) {
    if (jobs.length == 1) {
      return EMPTY;
    }
    String[] j = new String[jobs.length - 1];
    Allocation[] al = new Allocation[j.length];
    System.arraycopy(jobs, 0, j, 0, i);
    System.arraycopy(allocations, 0, al, 0, i);
    System.arraycopy(jobs, i + 1, j, i, j.length - i);
    System.arraycopy(allocations, i + 1, al, i, j.length - i);
    return new JobAllocations(j, al);
  }

  /** Running jobs: how many allocations this map holds. */
  @Override
  public int size() {
    return jobs.length;
  }

  /** The id of the i-th running job, in id order ({@code 0 <= i < size()}). */
  public String jobAt(int i) {
    return jobs[i];
  }

  /** The allocation of the i-th running job, in id order ({@code 0 <= i < size()}); never empty. */
  public Allocation allocationAt(int i) {
    return allocations[i];
  }

  /** The position of job {@code id}, or a negative number if it does not run. */
  public int indexOf(Object id) {
    return id instanceof String s ? Arrays.binarySearch(jobs, s) : -1;
  }

  @Override
  public Allocation get(Object id) {
    int i = indexOf(id);
    return i >= 0 ? allocations[i] : null;
  }

  @Override
  public boolean containsKey(Object id) {
    return indexOf(id) >= 0;
  }

  @Override
  public Set<Entry<String, Allocation>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<String, Allocation>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < jobs.length;
          }

          @Override
          public Entry<String, Allocation> next() {
            if (next >= jobs.length) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new SimpleImmutableEntry<>(jobs[i], allocations[i]);
          }
        };
      }

      @Override
      public int size() {
        return jobs.length;
      }
    };
  }

  @Override
  public Comparator<? super String> comparator() {
    return null; // natural order
  }

  @Override
  public String firstKey() {
    if (jobs.length == 0) {
      throw new NoSuchElementException();
    }
    return jobs[0];
  }

  @Override
  public String lastKey() {
    if (jobs.length == 0) {
      throw new NoSuchElementException();
    }
    return jobs[jobs.length - 1];
  }

  @Override
  public SortedMap<String, Allocation> subMap(String fromKey, String toKey) {
    if (fromKey.compareTo(toKey) > 0) {
      throw new IllegalArgumentException(
          "fromKey '" + fromKey + "' is after toKey '" + toKey + "'");
    }
    return range(insertionPoint(fromKey), insertionPoint(toKey));
  }

  @Override
  public SortedMap<String, Allocation> headMap(String toKey) {
    return range(0, insertionPoint(toKey));
  }

  @Override
  public SortedMap<String, Allocation> tailMap(String fromKey) {
    return range(insertionPoint(fromKey), jobs.length);
  }

  private int insertionPoint(String key) {
    int i = Arrays.binarySearch(jobs, key);
    return i >= 0 ? i : -i - 1;
  }

  private JobAllocations range(int from, int to) {
    return from >= to
        ? EMPTY
        : new JobAllocations(
            Arrays.copyOfRange(jobs, from, to), Arrays.copyOfRange(allocations, from, to));
  }
}
