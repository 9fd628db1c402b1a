# Centroid RMS of probe_swing outputs (files as arguments) against a converged reference, the file
# named by $SWING_REF (default /tmp/h13c/ref.txt): the experiment tree's `EXP_ITERS=1000 probe_swing
# 12 1` (docs/physics.md session 10 says how to build it; main has no iteration override).
import os, sys
def parse(t): return [float(x.split(':')[1]) for x in t.split('|')[0].split()]
ref=parse(open(os.environ.get('SWING_REF', '/tmp/h13c/ref.txt')).read())
for fn in sys.argv[1:]:
    t=open(fn).read()
    v=parse(t)
    rms=(sum((a-b)**2 for a,b in zip(v,ref))/len(ref))**0.5
    print(f"{fn:28s} rms {rms:.4f}  {t.split('|')[1].strip()}")
