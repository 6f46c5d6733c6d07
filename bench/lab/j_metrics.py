import streamlit as st
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    cols = st.columns(4)
    for i, c in enumerate(cols):
        c.metric(f"m{i}", f"{v*i:.2f}", delta=f"{v-50}")
    with st.container(border=True):
        st.markdown(f"**{v}** words words words")
    st.write(v)
f()
