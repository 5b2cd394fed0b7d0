# Generates quantity texts for run.sh: signs, leading zeros, 0-45 integer and fraction digits,
# every suffix and some invalid ones, exponents around the 32- and 64-bit limits, stray bytes.
import random, sys
random.seed(int(sys.argv[1]) if len(sys.argv)>1 else 1)
sufs=['','n','u','m','k','M','G','T','P','E','Ki','Mi','Gi','Ti','Pi','Ei','e','E','e0','e3','e-3','E+6','e-9','e-10','e-12','e18','e19','e21','e-20','e+','e-','i','mi','ki','KI','Ee5','e4294967297','e4294967296','e-4294967296','e9223372036854775808','e-9223372036854775809','e99','e-99','Ei5','Mi5','m5','k-1','e5x',' ','x','0x','e 5','e1.5']
def digits(n, lead=False):
    s=''.join(random.choice('0123456789') for _ in range(n))
    if lead and random.random()<0.3: s='0'*random.randint(1,5)+s
    return s
out=[]
N=int(sys.argv[2]) if len(sys.argv)>2 else 100000
for _ in range(N):
    r=random.random()
    if r<0.75:
        s=random.choice(['','','','+','-'])
        s+=digits(random.choice([0,1,1,2,3,5,9,12,15,17,18,19,20,25,30,38,40,45]), True)
        if random.random()<0.5:
            s+='.'+digits(random.choice([0,1,2,3,5,9,10,12,18,20,30,45]))
        s+=random.choice(sufs)
        if random.random()<0.03:
            i=random.randint(0,len(s)); s=s[:i]+random.choice(' .x+-e_\t')+s[i:]
    else:
        n=random.randint(0,8)
        s=''.join(random.choice('0123456789.+-eEinumkKMGTPx ') for _ in range(n))
    out.append(s)
sys.stdout.write('\n'.join(out)+'\n')
