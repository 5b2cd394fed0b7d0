# Compares upstream.txt and mltwin.txt line by line (run.sh); prints the differences that
# docs/quantities.md does not list as known ones.
import sys
from decimal import Decimal, getcontext
getcontext().prec=400
inp=open(sys.argv[1]).read().split('\n')[:-1]
go=open(sys.argv[2]).read().split('\n')[:-1]
cc=open(sys.argv[3]).read().split('\n')[:-1]
bad={}; expected={}
def sigdigits(d):
    t=d.normalize().as_tuple(); return len(t.digits)
for s,g,c in zip(inp,go,cc):
    if g==c: continue
    gp=g.split(' '); cp=c.split(' ')
    kind=None
    if gp[0]=='TIMEOUT':
        expected['upstream ParseQuantity did not finish in 2 s']=expected.get('upstream ParseQuantity did not finish in 2 s',0)+1; print('   timeout:',repr(s),'c++:',c); continue
    if gp[0]!=cp[0]:
        if gp[0]=='OK' and cp[1]=='OutOfRange' and sigdigits(Decimal(gp[1]))>38 and abs(Decimal(gp[1]))>=Decimal('1e29'):
            expected['out of range, >38 digits']=expected.get('out of range, >38 digits',0)+1; continue
        kind='okerr'
    elif gp[0]=='ERR': kind='errkind'
    else:
        a=Decimal(gp[1])
        if a!=Decimal(cp[1]): kind='amount'
        elif gp[2]!=cp[2]: kind='format'
        elif gp[3]!=cp[3]: kind='string'
        elif gp[4]!=cp[4] or gp[5]!=cp[5]:
            if a<0: expected['negative Value/MilliValue (upstream inf.Dec path)']=expected.get('negative Value/MilliValue (upstream inf.Dec path)',0)+1; continue
            kind='value'
        else: continue
    bad.setdefault(kind,[]).append((s,g,c))
print('total',len(inp),'identical',sum(1 for g,c in zip(go,cc) if g==c),'ok in Go',sum(1 for g in go if g.startswith('OK')))
print('expected differences',expected)
print('unexpected',sum(len(v) for v in bad.values()))
for k,v in bad.items():
    print(k,len(v))
    for x in v[:8]: print('   ',repr(x[0]),'| go:',x[1],'| c++:',x[2])
