def make_adder(n):
    return lambda x: x + n
add3 = make_adder(3)
total = 0
for i in range(1000000):
    total = add3(total) - 2
print(total)
