"""The local-recoding engine: least-upper-bound recoding over generalization posets (Vinterbo 2002;
Katirai 2006), with Greedy, overlapping Greedy and Partition."""
